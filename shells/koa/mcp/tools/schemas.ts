/** Output schema fragments, argument descriptions and annotations the tool definitions share. */

/** A closed object schema: only the listed properties, `required` ones must be present. */
export const object = (properties: Record<string, unknown>, required: string[] = []) => ({
  type: 'object',
  properties,
  required,
  additionalProperties: false,
});

/** Annotations of a tool that only reads the service's own data. */
export const READ = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
/** Annotations of a tool that only reads, but from a warehouse outside the service. */
export const READ_WAREHOUSE = { ...READ, openWorldHint: true };

/** The `workspace` argument's description, the same on every tool that takes it. */
export const WORKSPACE =
  'Workspace slug to act on. Omit to use what this authorization is locked to (your personal account, or the workspace chosen at sign-in).';

/**
 * A dashboard slug as declared: its shape and length are the domain's to refuse, in the spec's own words
 * (`slug exceeds 64-char limit ...`, domain/names.ts), so the bounds are only documented here.
 */
export const SLUG = { description: 'Dashboard slug: [a-z0-9-], 1 to 64 characters.', documented: { minLength: 1, maxLength: 64 } } as const;
export const VERSION_ID = { description: 'A version id (UUID) from list_dashboard_versions.' } as const;

export const fileSchema = {
  type: 'object',
  properties: {
    filename: { type: 'string' },
    size: { type: 'integer' },
    content_type: { type: 'string' },
    url: { type: 'string' },
  },
  required: ['filename', 'size', 'content_type', 'url'],
} as const;

export const dashboardSchema = {
  type: 'object',
  properties: {
    slug: { type: 'string' },
    name: { type: 'string' },
    url: { type: 'string' },
    owner: { type: 'string' },
    workspace: { type: ['string', 'null'] },
    visibility: { type: 'string', enum: ['public', 'private'] },
    tags: { type: 'array', items: { type: 'string' } },
    chart: { type: ['string', 'null'] },
    connection: { type: 'string' },
    current_version_id: { type: 'string' },
    files: { type: 'array', items: fileSchema },
    refreshable: { type: 'boolean' },
    created_at: { type: 'string' },
    updated_at: { type: 'string' },
  },
  required: ['slug', 'name', 'url', 'visibility', 'tags', 'current_version_id', 'files'],
} as const;

/** A spec's summary (domain/spec-summary.ts): what get_dashboard's `summary` and a dry-run patch answer. */
export const specSummarySchema = object(
  {
    title: { type: 'string' },
    description: { type: ['string', 'null'] },
    bytes: { type: 'integer' },
    panels: { type: 'array', items: { type: 'object' } },
    queries: { type: 'array', items: { type: 'object' } },
    data: { type: 'array', items: { type: 'object' } },
    params: { type: 'array' },
    alerts: { type: 'array' },
  },
  ['title', 'description', 'bytes', 'panels', 'queries', 'data', 'params', 'alerts'],
);
