import http from 'node:http';
import https from 'node:https';
import type { LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import type { ClientMetadataSource, FetchedClientMetadata } from '../../application/ports/client-metadata-source.js';
import { CLIENT_METADATA_MAX_BYTES, CLIENT_METADATA_TIMEOUT_MS, clientMetadataRefused } from '../../domain/client-metadata.js';
import { canonicalAddress, classifyAddress } from '../warehouse/address-ranges.js';
import { interfaceAddresses, systemResolver, type Resolver } from '../warehouse/dns-address-policy.js';

export interface HttpClientMetadataOptions {
  /** ALLOW_LOOPBACK_CLIENT_METADATA: documents on loopback addresses, for local testing only. */
  allowLoopback: boolean;
  /**
   * The ports this process listens on (public and admin listeners, the embedded database) and its backing
   * services' ports: on loopback, those are the service itself and are never fetched from.
   */
  ownPorts?: () => Iterable<number>;
  timeoutMs?: number;
  maxBytes?: number;
  resolve?: Resolver;
  /** This machine's interface addresses: a document there would be served by a neighbour of the service. */
  localAddresses?: () => string[];
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** Carries a refusal out of the socket's lookup, which may only fail with an Error. */
class Refusal extends Error {
  constructor(readonly reason: string) {
    super(reason);
  }
}

/** Every address refusal, whichever rule refused it and however the host resolved (or failed to). */
export const ADDRESS_REFUSED = 'its host is not an address this service fetches metadata documents from';

/**
 * Fetches client ID metadata documents with node's HTTP client. The outbound address policy is the
 * warehouses' (address-ranges.ts): every address the host resolves to must be public and not one of
 * this machine's; with `allowLoopback`, loopback addresses pass too (other than the service's own
 * ports). The check runs inside the socket's own lookup, so the address judged is the address
 * connected to: DNS answering differently a moment later (rebinding) changes nothing.
 *
 * Failures come in two texts only: one for an address refused, one for anything that kept a valid
 * document from arriving (refused or reset connection, timeout, status, redirect, size, JSON, and the
 * service's own ports). Distinct texts would tell a client_id prober which ports are open, and what
 * answers there.
 */
export class HttpClientMetadataSource implements ClientMetadataSource {
  private readonly resolve: Resolver;
  private readonly localAddresses: () => string[];
  private readonly timeoutMs: number;
  private readonly maxBytes: number;

  constructor(private readonly options: HttpClientMetadataOptions) {
    this.resolve = options.resolve ?? systemResolver;
    this.localAddresses = options.localAddresses ?? interfaceAddresses;
    this.timeoutMs = options.timeoutMs ?? CLIENT_METADATA_TIMEOUT_MS;
    this.maxBytes = options.maxBytes ?? CLIENT_METADATA_MAX_BYTES;
  }

  async fetch(url: URL): Promise<FetchedClientMetadata> {
    const refuse = (why: string) => clientMetadataRefused(url.href, why);
    const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
    const literal = url.hostname.replace(/^\[|\]$/g, '');
    // An IP literal is connected to without a lookup, so it is judged here.
    if (isIP(literal)) {
      const why = this.refusalOf(literal, port);
      if (why) throw refuse(why);
    }
    try {
      return await this.get(url, port);
    } catch (error) {
      if (error instanceof Refusal) throw refuse(error.reason);
      throw error;
    }
  }

  /** Why the service may not connect to `address`, or null when it may. */
  private refusalOf(address: string, port: number): string | null {
    const kind = classifyAddress(address);
    if (kind === 'loopback' && this.options.allowLoopback) {
      // The fetch failure's text, not the address's: which loopback ports are the service's is not told either.
      return [...(this.options.ownPorts?.() ?? [])].includes(port) ? this.fetchFailed() : null;
    }
    if (kind !== 'public') return ADDRESS_REFUSED;
    if (this.localAddresses().map(canonicalAddress).includes(canonicalAddress(address))) return ADDRESS_REFUSED;
    return null;
  }

  private lookup(port: number) {
    return (hostname: string, options: { all?: boolean }, callback: LookupCallback): void => {
      this.resolve(hostname).then(
        (addresses) => {
          if (addresses.length === 0) return callback(new Refusal(ADDRESS_REFUSED), []);
          for (const address of addresses) {
            const why = this.refusalOf(address, port);
            if (why) return callback(new Refusal(why), []);
          }
          const entries = addresses.map((address) => ({ address, family: isIP(address) }));
          if (options.all) callback(null, entries);
          else callback(null, entries[0]!.address, entries[0]!.family);
        },
        // Told apart from a refused address, an unresolvable name would show which internal names exist.
        () => callback(new Refusal(ADDRESS_REFUSED), []),
      );
    };
  }

  private get(url: URL, port: number): Promise<FetchedClientMetadata> {
    const client = url.protocol === 'https:' ? https : http;
    return new Promise((resolve, reject) => {
      const request = client.request(url, {
        method: 'GET',
        headers: { accept: 'application/json' },
        lookup: this.lookup(port) as never,
        // No connection reuse: each fetch is judged and connected on its own.
        agent: false,
      });
      // The first outcome wins; whatever the socket reports after it is the echo of tearing it down.
      let settled = false;
      const settle = (outcome: { error: Error } | { value: FetchedClientMetadata }) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if ('value' in outcome) return resolve(outcome.value);
        request.destroy();
        const { error } = outcome;
        reject(error instanceof Refusal ? error : new Refusal(this.fetchFailed()));
      };
      const fail = () => settle({ error: new Refusal(this.fetchFailed()) });
      const timer = setTimeout(fail, this.timeoutMs);
      request.on('error', (error) => settle({ error }));
      request.on('response', (response) => {
        const status = response.statusCode ?? 0;
        if (status !== 200) return fail(); // redirects included: they are not followed
        if (Number(response.headers['content-length']) > this.maxBytes) return fail();
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > this.maxBytes) return fail();
          chunks.push(chunk);
        });
        response.on('error', (error) => settle({ error }));
        response.on('end', () => {
          let document: unknown;
          try {
            document = JSON.parse(Buffer.concat(chunks).toString('utf8'));
          } catch {
            return fail();
          }
          const header = (name: string) => {
            const value = response.headers[name];
            return Array.isArray(value) ? value.join(', ') : (value ?? null);
          };
          settle({ value: { document, cacheControl: header('cache-control'), age: header('age') } });
        });
      });
      request.end();
    });
  }

  /** The one text for a document that did not arrive, saying what one that arrives looks like. */
  private fetchFailed(): string {
    return (
      `no metadata document could be fetched from it (the service fetches only a JSON document of at most ${this.maxBytes / 1024} KB, ` +
      `answered with HTTP 200 within ${this.timeoutMs / 1000} seconds, without redirects)`
    );
  }
}
