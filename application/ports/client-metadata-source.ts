export const ClientMetadataSource = Symbol.for('ClientMetadataSource');

/** One fetched client metadata document, not yet judged. */
export interface FetchedClientMetadata {
  /** The parsed JSON body. */
  document: unknown;
  cacheControl: string | null;
  age: string | null;
}

/**
 * Where client ID metadata documents come from: an https GET of the client id URL. Implementations
 * reach only addresses the outbound address policy allows (no loopback, private, link-local or this
 * machine's own addresses unless the operator allows loopback for local testing), follow no
 * redirect, stop after a few seconds and a few kilobytes, and throw an OAuthError (`invalid_client`,
 * see domain/client-metadata.ts) saying why a document could not be had.
 */
export interface ClientMetadataSource {
  fetch(url: URL): Promise<FetchedClientMetadata>;
}
