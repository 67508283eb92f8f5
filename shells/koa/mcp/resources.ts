import type { Principal } from '../../../application/ports/token-verifier.js';
import { invalidParams } from './jsonrpc.js';

/** One dashboard as resources/list shows it. */
export interface ResourceEntry {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType: string;
}

export type ResourceContents = { uri: string; mimeType: string; text: string } | { uri: string; mimeType: string; blob: string };

/**
 * A parsed `<scheme>://{handle}/{slug}[?query]`; `handle` is a user handle or a workspace slug (both are
 * subdomains). `query` is the raw query string without `?` (empty when none): parameter values, read as the
 * dashboard's page reads its URL's (decision 0283).
 */
export interface ResourceRef {
  uri: string;
  handle: string;
  slug: string;
  query: string;
}

/**
 * What the lead's dashboard layer provides to the resource surface.
 * Errors: throw DomainError('invalid_argument') for a bad cursor (→ -32602), DomainError('not_found') for a
 * dashboard the caller cannot see (→ -32002), anything else thrown is an infrastructure failure (→ -32000).
 */
export interface ResourceSource {
  /** The dashboards of the authorization's target, paginated with list_dashboards' cursor. */
  list(principal: Principal, cursor: string | undefined): Promise<{ resources: ResourceEntry[]; nextCursor?: string | null }>;
  /** One dashboard's body (its index.html unless the source decides otherwise). */
  read(principal: Principal, ref: ResourceRef): Promise<ResourceContents>;
  /** One dashboard's image as a PNG blob, under the same authorization as `read` (not a listed template). */
  image(principal: Principal, ref: ImageResourceRef): Promise<ResourceContents>;
}

/** A parsed `<scheme>://{handle}/_image/{slug}.png`, optionally `?theme=light|dark` and parameter values. */
export interface ImageResourceRef extends ResourceRef {
  theme: 'light' | 'dark';
}

export const DEFAULT_RESOURCE_MIME_TYPE = 'text/html';

export const resourceUriTemplate = (serviceName: string) => `${serviceName}://{handle}/{slug}`;

export const resourceUri = (serviceName: string, handle: string, slug: string) => `${serviceName}://${handle}/${slug}`;

export function resourceTemplates(serviceName: string) {
  return [
    {
      uriTemplate: resourceUriTemplate(serviceName),
      name: 'dashboard',
      title: 'Dashboard',
      description:
        'A published dashboard: {handle} is the personal handle or workspace slug it belongs to, {slug} its slug. ' +
        'Reading it returns the dashboard body.',
      mimeType: DEFAULT_RESOURCE_MIME_TYPE,
    },
  ];
}

const NAME = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;
/** `/_image/` can name no slug (slugs have no underscore), as on the dashboards host. */
const IMAGE_PATH = /^([a-z0-9](?:[a-z0-9-]*[a-z0-9])?)\/_image\/([a-z0-9-]{1,64})\.png$/;
/** A query string as URLSearchParams or encodeURIComponent writes one: anything else is not a value's text. */
const QUERY = /^[A-Za-z0-9!'()*._~%+&=-]{1,4096}$/;

/** The URI's part before `?` and its query (null when the query is not one the host would read). */
function splitQuery(rest: string): { path: string; query: string | null } {
  const at = rest.indexOf('?');
  if (at < 0) return { path: rest, query: '' };
  const query = rest.slice(at + 1);
  return { path: rest.slice(0, at), query: QUERY.test(query) ? query : null };
}

/**
 * `<scheme>://{handle}/_image/{slug}.png[?theme=dark&…]`, the dashboard's image as its host serves it at
 * `/_image/<slug>.png` (the in-chat view reads it through the host bridge, decisions 0232 and 0283), or null
 * for any other URI, which `parseResourceUri` then judges.
 */
export function parseImageResourceUri(serviceName: string, uri: unknown): ImageResourceRef | null {
  const prefix = `${serviceName}://`;
  if (typeof uri !== 'string' || !uri.startsWith(prefix)) return null;
  const { path, query } = splitQuery(uri.slice(prefix.length));
  const match = IMAGE_PATH.exec(path);
  if (!match || match[1]!.length > 64 || query === null) return null;
  const themes = new URLSearchParams(query).getAll('theme');
  if (themes.length > 1 || (themes.length === 1 && themes[0] !== 'light' && themes[0] !== 'dark')) return null;
  return { uri, handle: match[1]!, slug: match[2]!, query, theme: themes[0] === 'dark' ? 'dark' : 'light' };
}
const SLUG = /^[a-z0-9-]{1,64}$/;

/** Parses `<scheme>://{handle}/{slug}[?query]` by hand: URL parsers lowercase and normalise what must be refused. */
export function parseResourceUri(serviceName: string, uri: unknown): ResourceRef {
  const expected = resourceUriTemplate(serviceName);
  if (typeof uri !== 'string' || uri === '') throw invalidParams(`Invalid params: "uri" must be a resource URI like ${expected}`);
  const prefix = `${serviceName}://`;
  const refuse = () => invalidParams(`Invalid resource URI "${uri}": expected ${expected}`, { uri });
  if (!uri.startsWith(prefix)) throw refuse();
  const { path, query } = splitQuery(uri.slice(prefix.length));
  const segments = path.split('/');
  if (segments.length !== 2 || query === null) throw refuse();
  const [handle, slug] = segments as [string, string];
  if (!NAME.test(handle) || handle.length > 64 || !SLUG.test(slug)) throw refuse();
  return { uri, handle, slug, query };
}
