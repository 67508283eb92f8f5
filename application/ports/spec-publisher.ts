import type { Target } from '../../domain/scope.js';
import type { SqlTarget } from './warehouse.js';

export interface PreparedSpec {
  /** The validated spec as stored with the version. */
  spec: object;
  /** Rendered files, normally `index.html` and `data.json`. */
  files: Record<string, Uint8Array>;
  warnings: string[];
}

export const SpecPublisher = Symbol.for('SpecPublisher');
/** Spec mode of publish_dashboard: validates a spec and renders it (running its queries, or on a dry run preparing them). */
export interface SpecPublisher {
  prepare(input: {
    target: Target;
    slug: string;
    spec: unknown;
    /** Opens the connection the publish already found usable; called only when the spec has queries. */
    sql: () => SqlTarget;
    dryRun: boolean;
    fallbackTitle: string;
  }): Promise<PreparedSpec>;
}
