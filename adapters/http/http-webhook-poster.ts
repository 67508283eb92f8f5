import http from 'node:http';
import https from 'node:https';
import type { LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import type { WebhookPoster } from '../../application/ports/delivery-ports.js';
import { DomainError } from '../../domain/errors.js';
import { canonicalAddress, classifyAddress } from '../warehouse/address-ranges.js';
import { interfaceAddresses, systemResolver, type Resolver } from '../warehouse/dns-address-policy.js';

export interface WebhookPosterOptions {
  /** ALLOW_PRIVATE_WEBHOOKS: loopback and private addresses too (never this service's own ports on loopback). */
  allowPrivate: boolean;
  /** The ports this process and its backing services listen on: never posted to on this machine. */
  ownPorts?: () => Iterable<number>;
  timeoutMs?: number;
  resolve?: Resolver;
  localAddresses?: () => string[];
}

export const WEBHOOK_TIMEOUT_MS = 5_000;
export const WEBHOOK_ADDRESS_REFUSED = 'the webhook\'s host is not an address this service sends to (only public addresses are allowed)';

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** Carries a refusal out of the socket's lookup, which may only fail with an Error. */
class Refusal extends Error {}

const refused = () => new DomainError('invalid_argument', WEBHOOK_ADDRESS_REFUSED);

/**
 * POSTs webhook bodies with node's HTTP client under the warehouses' outbound address policy
 * (address-ranges.ts): every address the host resolves to must be public and not this machine's. The
 * check runs inside the socket's own lookup, so the address judged is the one connected to. No
 * redirect is followed (a 3xx is a failure) and each post gets 5 seconds in all.
 */
export class HttpWebhookPoster implements WebhookPoster {
  private readonly resolve: Resolver;
  private readonly localAddresses: () => string[];
  private readonly timeoutMs: number;

  constructor(private readonly options: WebhookPosterOptions) {
    this.resolve = options.resolve ?? systemResolver;
    this.localAddresses = options.localAddresses ?? interfaceAddresses;
    this.timeoutMs = options.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
  }

  async check(text: string): Promise<void> {
    const url = new URL(text);
    const port = portOf(url);
    const literal = url.hostname.replace(/^\[|\]$/g, '');
    const addresses = isIP(literal) ? [literal] : await this.resolve(literal).catch(() => [] as string[]);
    if (addresses.length === 0 || addresses.some((a) => !this.allowed(a, port))) throw refused();
  }

  async post(text: string, body: string, headers: Record<string, string>): Promise<void> {
    await this.check(text);
    const url = new URL(text);
    try {
      await this.send(url, body, headers);
    } catch (err) {
      if (err instanceof Refusal) throw refused();
      throw err;
    }
  }

  private allowed(address: string, port: number): boolean {
    const kind = classifyAddress(address);
    if (kind === 'loopback' && [...(this.options.ownPorts?.() ?? [])].includes(port)) return false;
    if (this.options.allowPrivate) return true;
    if (kind !== 'public') return false;
    return !this.localAddresses().map(canonicalAddress).includes(canonicalAddress(address));
  }

  private lookup(port: number) {
    return (hostname: string, options: { all?: boolean }, callback: LookupCallback): void => {
      this.resolve(hostname).then(
        (addresses) => {
          if (addresses.length === 0 || addresses.some((a) => !this.allowed(a, port))) return callback(new Refusal(), []);
          const entries = addresses.map((address) => ({ address, family: isIP(address) }));
          if (options.all) callback(null, entries);
          else callback(null, entries[0]!.address, entries[0]!.family);
        },
        () => callback(new Refusal(), []),
      );
    };
  }

  private send(url: URL, body: string, headers: Record<string, string>): Promise<void> {
    const client = url.protocol === 'https:' ? https : http;
    return new Promise((resolve, reject) => {
      const request = client.request(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': 'dashpub-webhook', 'content-length': Buffer.byteLength(body), ...headers },
        lookup: this.lookup(portOf(url)) as never,
        agent: false, // each post is judged and connected on its own
      });
      let settled = false;
      const settle = (error: Error | null) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        request.destroy();
        if (error) reject(error);
        else resolve();
      };
      const timer = setTimeout(() => settle(new Error(`the webhook did not answer within ${this.timeoutMs / 1000} seconds`)), this.timeoutMs);
      request.on('error', (error) => settle(error instanceof Refusal ? error : new Error(`could not reach the webhook: ${error.message}`)));
      request.on('response', (response) => {
        const status = response.statusCode ?? 0;
        response.resume();
        if (status >= 200 && status < 300) return settle(null);
        settle(new Error(status >= 300 && status < 400 ? `the webhook answered a redirect (HTTP ${status}), which is not followed` : `the webhook answered HTTP ${status}`));
      });
      request.end(body);
    });
  }
}

const portOf = (url: URL) => Number(url.port || (url.protocol === 'https:' ? 443 : 80));
