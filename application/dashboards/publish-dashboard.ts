import { randomUUID } from 'node:crypto';
import { inject, injectable } from 'inversify';
import { DomainError, invalid } from '../../domain/errors.js';
import { checkUploadSize } from '../../domain/limits.js';
import { applyMetadataPatch, parseMetadataPatch } from '../../domain/metadata.js';
import { parsePath } from '../../domain/names.js';
import { defaultVisibility, ownerOf, type Target } from '../../domain/scope.js';
import { parseConnectionRef, connectionRefText, type ConnectionRef } from '../../domain/connection-ref.js';
import { RENDERED_FILES } from '../../domain/dashboard-spec.js';
import { Utf8Body } from '../../domain/utf8-body.js';
import { Clock } from '../ports/clock.js';
import { ConnectionDirectory, type UsableConnection } from '../ports/connection-directory.js';
import { DashboardStore, type DashboardRecord, type Manifest, type PublishWrite } from '../ports/dashboard-store.js';
import { SpecPublisher } from '../ports/spec-publisher.js';
import type { Principal } from '../ports/token-verifier.js';
import { ScopeResolver } from '../scope-resolver.js';
import type { MetadataInput } from './update-dashboard.js';
import { fileEntry } from '../file-entries.js';
import type { SpecSummary } from '../../domain/spec-summary.js';
import { PatchSpec } from './patch-spec.js';

/** What a publish did, or on a dry run would do. */
export interface PublishResult {
  mode: 'body' | 'spec';
  dryRun: boolean;
  created: boolean;
  path: string;
  bytes: number;
  target: Target;
  slug: string;
  /** The dashboard as written and its new current version; null on a dry run (nothing was written). */
  published: { dashboard: DashboardRecord; version: PublishWrite['version'] } | null;
  warnings: string[];
  /** A dry run of a patch: the resulting spec's summary. */
  summary?: SpecSummary;
}

/**
 * What publish_dashboard asks for. The tool edge has already checked each value's JSON type and the
 * encoding's enum (its input class, shells/koa/mcp/tools/dashboard-inputs.ts). `workspace`, the metadata the domain words
 * itself (MetadataInput) and `spec` (an object or a JSON string, parsed by the domain) stay `unknown`.
 */
export interface PublishCommand extends MetadataInput {
  workspace?: unknown;
  path: string;
  body?: string | Utf8Body | null;
  encoding?: 'utf8' | 'base64' | null;
  spec?: unknown;
  /** Operations on the current spec (domain/spec-patch.ts), instead of `spec` or `body`. */
  patch?: unknown;
  dryRun?: boolean | null;
}

/** Where a publish writes and how: what building its content needs besides the command. */
interface PublishPlace {
  principal: Principal;
  target: Target;
  slug: string;
  filename: string;
  connection: UsableConnection;
  dryRun: boolean;
}

/** A publish's body, until decoding takes it. */
interface Upload {
  body?: string | Utf8Body | null;
}

interface Content {
  mode: 'body' | 'spec';
  files: Record<string, Uint8Array>;
  spec: object | null;
  warnings: string[];
  /** For a patch: the version it applied to, and on a dry run the resulting spec's summary. */
  basedOn?: string;
  summary?: SpecSummary | null;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

const renderReplacedWarning = (filename: string) =>
  `${filename} replaces the page rendered from this dashboard's spec, so the dashboard is now static and no longer refreshes; ` +
  'publish a spec again to make it refreshable.';

/** publish_dashboard: writes one file (body mode) or a rendered spec, and makes a new current version. */
@injectable()
export class PublishDashboard {
  constructor(
    @inject(DashboardStore) private readonly store: DashboardStore,
    @inject(ScopeResolver) private readonly scopes: ScopeResolver,
    @inject(Clock) private readonly clock: Clock,
    @inject(ConnectionDirectory) private readonly connections: ConnectionDirectory,
    @inject(SpecPublisher) private readonly specs: SpecPublisher,
    @inject(PatchSpec) private readonly patches: PatchSpec,
  ) {}

  /**
   * The body goes on in a holder that decoding empties, not in the command this frame keeps: a 5 MiB
   * upload is then held as bytes only, not also as text, while the write waits for the database
   * (docs/decisions/0043-large-body-decoding.md).
   */
  execute(principal: Principal, command: PublishCommand): Promise<PublishResult> {
    const { body, ...rest } = command;
    return this.publish(principal, rest, { body });
  }

  private async publish(principal: Principal, command: Omit<PublishCommand, 'body'>, upload: Upload): Promise<PublishResult> {
    const target = await this.scopes.resolve(principal, command.workspace);
    const { slug, filename } = parsePath(command.path);
    const patch = parseMetadataPatch({ name: command.name, chart: command.chart, tags: command.tags, visibility: command.visibility });
    const connectionGiven = command.connection !== undefined && command.connection !== null;
    const connection = connectionGiven ? parseConnectionRef(command.connection) : await this.keptConnection(target, slug, given(command.spec) || given(command.patch));
    const dryRun = command.dryRun ?? false;
    const usable = await this.connections.ensureUsable(principal, target, connection);
    const content = await this.content(command, upload, { principal, target, slug, filename, connection: usable, dryRun });
    const warnings = [...usable.warnings, ...content.warnings];
    const bytes = Object.values(content.files).reduce((sum, file) => sum + file.byteLength, 0);
    const path = content.mode === 'body' ? `${slug}/${filename}` : slug;

    const owner = ownerOf(target);
    // Hashed once here: the decision below may run more than once.
    const entries = Object.entries(content.files).map(([name, data]) => ({ name, data, entry: fileEntry(name, data) }));
    const toStore = dryRun ? [] : entries.map(({ data, entry }) => ({ sha256: entry.sha256, bytes: data }));
    return this.store.publish<PublishResult>(owner, slug, toStore, ({ alias, dashboard: existing, current: previous }) => {
      if (alias) {
        const renamed = alias.dashboardSlug ?? '?';
        throw new DomainError(
          'conflict',
          `slug "${slug}" is an alias left by renaming a dashboard to "${renamed}". ` +
            `Publish to "${renamed}" instead, or pick another slug.`,
        );
      }
      if (content.basedOn !== undefined && previous?.id !== content.basedOn) throw patchedStale(slug);
      const files: Manifest = content.mode === 'body' && previous ? { ...previous.files } : {};
      for (const { name, entry } of entries) files[name] = entry;
      const now = this.clock.now();
      const metadata = applyMetadataPatch(
        existing ?? { name: slug, tags: [], chart: null, visibility: defaultVisibility(target) },
        patch,
      );
      const dashboard: DashboardRecord = existing
        ? { ...existing, ...metadata, connection: connectionGiven ? connectionRefText(connection) : existing.connection, updatedAt: now }
        : {
            id: randomUUID(),
            owner,
            slug,
            ...metadata,
            connection: connectionRefText(connection),
            currentVersionId: '',
            createdBy: principal.userId,
            createdAt: now,
            updatedAt: now,
          };
      // A page of the user's own over the rendered one makes the dashboard static: a refresh would
      // otherwise render the spec over it again.
      const replacesRender = content.mode === 'body' && (previous?.spec ?? null) !== null && RENDERED_FILES.includes(filename);
      const spec = content.mode === 'spec' ? content.spec : replacesRender ? null : (previous?.spec ?? null);
      const allWarnings = replacesRender ? [...warnings, renderReplacedWarning(filename)] : warnings;
      const created = !existing;
      if (dryRun) {
        const result: PublishResult = { mode: content.mode, dryRun: true, created, path, bytes, target, slug, published: null, warnings: allWarnings };
        if (content.summary) result.summary = content.summary;
        return { write: null, result };
      }
      const version = { id: randomUUID(), dashboardId: dashboard.id, name: null, createdAt: now, createdBy: principal.userId, files, spec };
      const written = { ...dashboard, currentVersionId: version.id };
      return {
        write: { dashboard: written, isNew: created, version },
        result: { mode: content.mode, dryRun: false, created, path, bytes, target, slug, published: { dashboard: written, version }, warnings: allWarnings },
      };
    });
  }

  private async content(command: Omit<PublishCommand, 'body'>, upload: Upload, at: PublishPlace): Promise<Content> {
    const hasBody = given(upload.body);
    if (given(command.patch)) {
      if (hasBody || given(command.spec)) throw invalid('pass "patch" alone, without "body" or "spec": a patch changes the dashboard\'s current spec');
      return this.patched(command, at);
    }
    if (hasBody === given(command.spec)) throw invalid('pass exactly one of "body" (a file) or "spec" (a dashboard spec)');
    if (hasBody) {
      const text = upload.body!;
      upload.body = undefined;
      return { mode: 'body', files: { [at.filename]: decodeBody(text, command.encoding) }, spec: null, warnings: [] };
    }
    if (command.path.includes('/')) {
      throw invalid(`path "${command.path}": a spec publishes the whole dashboard; pass the bare slug "${at.slug}"`);
    }
    const prepared = await this.specs.prepare({
      target: at.target,
      slug: at.slug,
      spec: command.spec,
      sql: at.connection.open,
      dryRun: at.dryRun,
      fallbackTitle: typeof command.name === 'string' && command.name.trim() ? command.name : at.slug,
    });
    return { mode: 'spec', files: prepared.files, spec: prepared.spec, warnings: prepared.warnings };
  }

  private async patched(command: Omit<PublishCommand, 'body'>, at: PublishPlace): Promise<Content> {
    if (command.path.includes('/')) {
      throw invalid(`path "${command.path}": a patch changes the whole dashboard's spec; pass the bare slug "${at.slug}"`);
    }
    const prepared = await this.patches.prepare({
      target: at.target,
      slug: at.slug,
      patch: command.patch,
      sql: at.connection.open,
      dryRun: at.dryRun,
      fallbackTitle: typeof command.name === 'string' && command.name.trim() ? command.name : at.slug,
    });
    return { mode: 'spec', files: prepared.files, spec: prepared.spec, warnings: prepared.warnings, basedOn: prepared.basedOn, summary: prepared.summary };
  }

  /**
   * The connection a spec runs on when the call names none: an omitted field keeps its value on
   * republish, so an existing dashboard's queries run where they always have (and where its refreshes
   * will run); a new dashboard, or a file, gets the default `self`.
   */
  private async keptConnection(target: Target, slug: string, specGiven: boolean): Promise<ConnectionRef> {
    if (!specGiven) return parseConnectionRef(undefined);
    const existing = await this.store.findDashboard(ownerOf(target), slug);
    return parseConnectionRef(existing?.connection);
  }
}

const given = (value: unknown) => value !== undefined && value !== null;

const patchedStale = (slug: string) =>
  new DomainError('conflict', `dashboard "${slug}" got a new version while this patch was applied; read its summary again and resend the patch`);

export function decodeBody(body: string | Utf8Body, encoding: 'utf8' | 'base64' | null | undefined): Uint8Array {
  if (encoding === 'base64') {
    const compact = (typeof body === 'string' ? body : body.text()).replace(/\s+/g, '');
    // Count before decoding so a huge upload is refused without allocating it.
    checkUploadSize(Math.floor((compact.length * 3) / 4) - (compact.endsWith('==') ? 2 : compact.endsWith('=') ? 1 : 0));
    if (compact.length % 4 !== 0 || !BASE64.test(compact)) throw invalid('body is not valid base64');
    return Buffer.from(compact, 'base64');
  }
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body.bytes;
  checkUploadSize(bytes.byteLength);
  return bytes;
}
