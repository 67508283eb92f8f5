import { BlockList, isIP } from 'node:net';

/** What an IP address reaches; everything but `public` stays inside someone's network. */
export type AddressKind = 'public' | 'loopback' | 'unspecified' | 'private' | 'shared' | 'link-local' | 'reserved';

type Range = [network: string, prefix: number, kind: AddressKind];

/** IANA's special-purpose IPv4 registry, less the few globally reachable entries. */
const V4_RANGES: Range[] = [
  ['0.0.0.0', 8, 'unspecified'], // "this network": connecting to 0.0.0.0 reaches the local host on Linux
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'shared'], // carrier-grade NAT
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local'], // includes cloud metadata at 169.254.169.254
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'reserved'],
  ['192.0.2.0', 24, 'reserved'], // documentation
  ['192.88.99.0', 24, 'reserved'], // 6to4 relay anycast, deprecated
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'reserved'], // benchmarking
  ['198.51.100.0', 24, 'reserved'],
  ['203.0.113.0', 24, 'reserved'],
  ['224.0.0.0', 4, 'reserved'], // multicast
  ['240.0.0.0', 4, 'reserved'], // future use and broadcast
];

/** IANA's special-purpose IPv6 registry; IPv4-mapped and NAT64 addresses are judged by their IPv4 part. */
const V6_RANGES: Range[] = [
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['::', 96, 'reserved'], // IPv4-compatible, deprecated
  ['64:ff9b:1::', 48, 'reserved'], // local-use NAT64
  ['100::', 64, 'reserved'], // discard-only
  ['2001::', 23, 'reserved'], // IETF protocol assignments: Teredo, ORCHID, benchmarking ...
  ['2001:db8::', 32, 'reserved'], // documentation
  ['2002::', 16, 'reserved'], // 6to4, which tunnels to an arbitrary embedded IPv4 address
  ['fc00::', 7, 'private'], // unique local
  ['fe80::', 10, 'link-local'],
  ['fec0::', 10, 'private'], // site-local, deprecated
  ['ff00::', 8, 'reserved'], // multicast
];

const compile = (ranges: Range[], family: 'ipv4' | 'ipv6') =>
  ranges.map(([network, prefix, kind]) => {
    const list = new BlockList();
    list.addSubnet(network, prefix, family);
    return { list, kind };
  });

const V4 = compile(V4_RANGES, 'ipv4');
const V6 = compile(V6_RANGES, 'ipv6');

/** Classifies one IP address (IPv4 or IPv6, a zone id allowed); throws on anything else. */
export function classifyAddress(address: string): AddressKind {
  const bare = address.replace(/%.*$/, '');
  const family = isIP(bare);
  if (family === 4) return match(V4, bare, 'ipv4');
  if (family !== 6) throw new Error(`not an IP address: ${address}`);
  const embedded = embeddedIPv4(bare);
  if (embedded) return classifyAddress(embedded);
  return match(V6, bare, 'ipv6');
}

export const isPublicAddress = (address: string) => classifyAddress(address) === 'public';

/**
 * One spelling per address, for comparing two lookups: IPv4-mapped IPv6 becomes its IPv4 address and
 * IPv6 is written out in full.
 */
export function canonicalAddress(address: string): string {
  const bare = address.replace(/%.*$/, '');
  if (isIP(bare) !== 6) return bare;
  const words = hextets(bare);
  if (isMapped(words)) return embeddedIPv4(bare)!;
  return words.map((w) => w.toString(16)).join(':');
}

function match(ranges: Array<{ list: BlockList; kind: AddressKind }>, address: string, family: 'ipv4' | 'ipv6'): AddressKind {
  return ranges.find(({ list }) => list.check(address, family))?.kind ?? 'public';
}

const isMapped = (w: number[]) => w.slice(0, 5).every((x) => x === 0) && w[5] === 0xffff;
const isNat64 = (w: number[]) => w[0] === 0x64 && w[1] === 0xff9b && w.slice(2, 6).every((x) => x === 0);

/**
 * The IPv4 address inside an IPv4-mapped (::ffff:0:0/96) or well-known NAT64 (64:ff9b::/96) address.
 * NAT64 is how IPv6-only networks reach public IPv4 hosts, so it must not be refused wholesale, but
 * 64:ff9b::7f00:1 is 127.0.0.1 on the translator's side.
 */
function embeddedIPv4(address: string): string | null {
  const w = hextets(address);
  if (!isMapped(w) && !isNat64(w)) return null;
  return [w[6]! >> 8, w[6]! & 0xff, w[7]! >> 8, w[7]! & 0xff].join('.');
}

/** The eight 16-bit words of a valid IPv6 address (`::` expanded, a dotted IPv4 tail converted). */
function hextets(address: string): number[] {
  let text = address.toLowerCase();
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const front = head ? head.split(':') : [];
  const back = tail ? tail.split(':') : [];
  const gap = tail === undefined ? [] : Array<string>(8 - front.length - back.length).fill('0');
  return [...front, ...gap, ...back].map((word) => parseInt(word, 16));
}
