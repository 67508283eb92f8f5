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

/** A parsed `<scheme>://{handle}/{slug}`; `handle` is a user handle or a workspace slug (both are subdomains). */
export interface ResourceRef {
  uri: string;
  handle: string;
  slug: string;
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

/** A parsed `<scheme>://{handle}/_image/{slug}.png`, optionally `?theme=light|dark`. */
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
const IMAGE_PATH = /^([a-z0-9](?:[a-z0-9-]*[a-z0-9])?)\/_image\/([a-z0-9-]{1,64})\.png(?:\?theme=(light|dark))?$/;

/**
 * `<scheme>://{handle}/_image/{slug}.png[?theme=dark]`, the dashboard's image as its host serves it at
 * `/_image/<slug>.png` (the in-chat view reads it through the host bridge, decision 0232), or null for any
 * other URI, which `parseResourceUri` then judges.
 */
export function parseImageResourceUri(serviceName: string, uri: unknown): ImageResourceRef | null {
  const prefix = `${serviceName}://`;
  if (typeof uri !== 'string' || !uri.startsWith(prefix)) return null;
  const match = IMAGE_PATH.exec(uri.slice(prefix.length));
  if (!match || match[1]!.length > 64) return null;
  return { uri, handle: match[1]!, slug: match[2]!, theme: match[3] === 'dark' ? 'dark' : 'light' };
}
const SLUG = /^[a-z0-9-]{1,64}$/;

/** Parses `<scheme>://{handle}/{slug}` by hand: URL parsers lowercase and normalise what must be refused. */
export function parseResourceUri(serviceName: string, uri: unknown): ResourceRef {
  const expected = resourceUriTemplate(serviceName);
  if (typeof uri !== 'string' || uri === '') throw invalidParams(`Invalid params: "uri" must be a resource URI like ${expected}`);
  const prefix = `${serviceName}://`;
  const refuse = () => invalidParams(`Invalid resource URI "${uri}": expected ${expected}`, { uri });
  if (!uri.startsWith(prefix)) throw refuse();
  const segments = uri.slice(prefix.length).split('/');
  if (segments.length !== 2) throw refuse();
  const [handle, slug] = segments as [string, string];
  if (!NAME.test(handle) || handle.length > 64 || !SLUG.test(slug)) throw refuse();
  return { uri, handle, slug };
}
