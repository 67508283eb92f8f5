import { invalid } from './errors.js';

export type Visibility = 'public' | 'private';

export interface DashboardMetadata {
  name: string;
  tags: string[];
  chart: string | null;
  visibility: Visibility;
}

/** What a call asks to change. An absent key means "preserve the prior value". */
export interface MetadataPatch {
  name?: string;
  tags?: string[];
  chart?: string;
  visibility?: Visibility;
}

/** Caps that keep replies and pages bounded; the same as a version name's for `name`. */
export const NAME_MAX_LENGTH = 200;
export const TAG_MAX_LENGTH = 64;
export const TAGS_MAX_COUNT = 50;

const given = (value: unknown) => value !== undefined && value !== null;

/**
 * The spec's metadata semantics, shared by publish (both modes) and update:
 * omitted or null preserves, `tags: []` clears, everything else is checked and never silently filtered.
 */
export function parseMetadataPatch(input: Record<string, unknown>): MetadataPatch {
  const patch: MetadataPatch = {};
  if (given(input.name)) {
    if (typeof input.name !== 'string' || input.name.trim() === '') throw invalid('name must be a non-empty string');
    if (input.name.length > NAME_MAX_LENGTH) throw invalid(`name exceeds ${NAME_MAX_LENGTH}-char limit (got ${input.name.length})`);
    patch.name = input.name;
  }
  if (given(input.chart)) {
    if (typeof input.chart !== 'string' || input.chart === '') throw invalid('chart must be a non-empty string');
    patch.chart = input.chart;
  }
  if (given(input.tags)) {
    if (!Array.isArray(input.tags)) throw invalid('tags must be an array of strings');
    input.tags.forEach((tag, i) => {
      if (typeof tag !== 'string') throw invalid(`tags[${i}] must be a string (got ${typeof tag})`);
      if (tag.length > TAG_MAX_LENGTH) throw invalid(`tags[${i}] exceeds ${TAG_MAX_LENGTH}-char limit (got ${tag.length})`);
    });
    const tags = [...new Set(input.tags as string[])];
    if (tags.length > TAGS_MAX_COUNT) throw invalid(`tags exceeds ${TAGS_MAX_COUNT}-tag limit (got ${tags.length})`);
    patch.tags = tags;
  }
  if (given(input.visibility)) {
    if (input.visibility !== 'public' && input.visibility !== 'private') {
      throw invalid('visibility must be "public" or "private"');
    }
    patch.visibility = input.visibility;
  }
  return patch;
}

export function applyMetadataPatch(current: DashboardMetadata, patch: MetadataPatch): DashboardMetadata {
  return {
    name: patch.name ?? current.name,
    tags: patch.tags ?? current.tags,
    chart: patch.chart ?? current.chart,
    visibility: patch.visibility ?? current.visibility,
  };
}

export function isEmptyPatch(patch: MetadataPatch): boolean {
  return Object.keys(patch).length === 0;
}
