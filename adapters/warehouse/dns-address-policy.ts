import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';
import type { WarehouseAddressPolicy } from '../../application/ports/warehouse-address-policy.js';
import { DomainError } from '../../domain/errors.js';
import { privateWarehouseHost, serviceOwnDatabase, socketWarehouseHost } from '../../domain/warehouse-refusals.js';
import { canonicalAddress, classifyAddress } from './address-ranges.js';
import { pgEndpoint, type PgEndpoint } from './pg-endpoint.js';

/** Every address a host name resolves to (an IP literal resolves to itself). */
export type Resolver = (host: string) => Promise<string[]>;

export const systemResolver: Resolver = async (host) => (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);

/** The database the service itself stores everything in: no warehouse may be on its server. */
export interface ServiceDatabase {
  url: string;
}

export interface AddressPolicyOptions {
  /** ALLOW_PRIVATE_WAREHOUSES. */
  allowPrivate: boolean;
  /** Null with memory storage: there is no database of the service's own to protect. */
  serviceDatabase: ServiceDatabase | null;
  resolve?: Resolver;
  /** This machine's interface addresses: a server listening on loopback often listens on them too. */
  localAddresses?: () => string[];
}

/** The key of "this machine" when comparing hosts; names get a prefix so none can collide with it. */
const LOCAL = '<local>';
const nameKey = (host: string) => `name:${host.toLowerCase()}`;

/**
 * The warehouse address policy with the system resolver. A host is judged by every address it resolves
 * to, any one non-public address refusing it, since the driver may connect to any of them. The check
 * and the driver's own lookup are separate, so DNS answering differently between them (rebinding) is
 * not caught here; running the check before every connection keeps that window to milliseconds, and the
 * warehouse adapter recognises the service database's own cluster by its identity once connected.
 */
export class DnsWarehouseAddressPolicy implements WarehouseAddressPolicy {
  private readonly resolve: Resolver;
  private readonly localAddresses: () => string[];
  private serviceEndpoint: PgEndpoint | undefined;

  constructor(private readonly options: AddressPolicyOptions) {
    this.resolve = options.resolve ?? systemResolver;
    this.localAddresses = options.localAddresses ?? interfaceAddresses;
  }

  async check(url: string): Promise<void> {
    const target = pgEndpoint(url);
    if (target.kind === 'socket') throw socketWarehouseHost(target.path);
    let addresses: string[];
    try {
      addresses = await this.resolve(target.host);
    } catch (err) {
      // The same text the driver gives for a host it cannot resolve; refused rather than let through,
      // since the driver's own lookup a moment later might answer with a private address.
      throw new DomainError('unavailable', `could not connect to the warehouse: ${err instanceof Error ? err.message : String(err)}`);
    }
    if (await this.isServiceServer(target, addresses)) throw serviceOwnDatabase();
    if (this.options.allowPrivate) return;
    const inner = addresses.find((address) => classifyAddress(address) !== 'public');
    if (inner !== undefined) throw privateWarehouseHost(target.host, isIP(target.host) ? target.host : inner);
  }

  /**
   * Same port on a host sharing an address with the service database's, loopback and this machine's own
   * addresses counting as one host. Any database name: every database on that server is reachable
   * from it (a superuser's pg_read_file reads the service's data files), so the server is what is refused.
   */
  private async isServiceServer(target: PgEndpoint & { kind: 'tcp' }, addresses: string[]): Promise<boolean> {
    const service = this.options.serviceDatabase;
    if (!service) return false;
    // The operator's own URL may name certificate files; parsed once.
    const own = (this.serviceEndpoint ??= pgEndpoint(service.url, { allowFiles: true }));
    if (own.port !== target.port) return false;
    const ownHosts = await this.hostKeys(own);
    const targetHosts = new Set([...addresses.map((a) => this.addressKey(a)), nameKey(target.host)]);
    return [...ownHosts].some((key) => targetHosts.has(key));
  }

  private async hostKeys(endpoint: PgEndpoint): Promise<Set<string>> {
    // A socket is on this machine, as is a TCP listener on loopback.
    if (endpoint.kind === 'socket') return new Set([LOCAL]);
    const addresses = await this.resolve(endpoint.host).catch(() => [] as string[]); // unresolvable now: compared by name alone, which still refuses the same name
    return new Set([...addresses.map((a) => this.addressKey(a)), nameKey(endpoint.host)]);
  }

  private addressKey(address: string): string {
    const kind = classifyAddress(address);
    const canonical = canonicalAddress(address);
    if (kind === 'loopback' || kind === 'unspecified') return LOCAL;
    return this.localAddresses().map(canonicalAddress).includes(canonical) ? LOCAL : canonical;
  }
}

export function interfaceAddresses(): string[] {
  return Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((i) => i.address));
}
