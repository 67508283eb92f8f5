import { expect } from 'chai';
import { canonicalAddress, classifyAddress } from '../../adapters/warehouse/address-ranges.js';
import { DnsWarehouseAddressPolicy, type Resolver } from '../../adapters/warehouse/dns-address-policy.js';
import { refusal } from '../support/refusal.js';

const PRIVATE_TAIL = 'this service only connects to public warehouses. Its operator can allow private networks with ALLOW_PRIVATE_WAREHOUSES=true.';
const OWN = "That URL leads to this service's own database server; add your warehouse, on a server of its own, instead.";

/** A resolver from a fixed table; IP literals resolve to themselves, as dns.lookup does. */
const resolverOf =
  (table: Record<string, string[]>): Resolver =>
  async (host) => {
    if (/^[\d.]+$/.test(host) || host.includes(':')) return [host];
    const found = table[host];
    if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return found;
  };

describe('warehouse addresses: classification', () => {
  const cases: Array<[string, string]> = [
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['10.0.0.5', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.10', 'private'],
    ['fc00::1', 'private'],
    ['fd12:3456::1', 'private'],
    ['::ffff:10.1.2.3', 'private'],
    ['169.254.169.254', 'link-local'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['100.64.0.1', 'shared'],
    ['100.127.255.254', 'shared'],
    ['192.0.2.1', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['224.0.0.1', 'reserved'],
    ['255.255.255.255', 'reserved'],
    ['2001:db8::1', 'reserved'],
    ['2002:7f00:1::', 'reserved'],
    ['ff02::1', 'reserved'],
    ['64:ff9b::10.0.0.1', 'private'],
    // Public, including neighbours of the ranges above.
    ['8.8.8.8', 'public'],
    ['1.1.1.1', 'public'],
    ['172.32.0.1', 'public'],
    ['100.128.0.1', 'public'],
    ['169.255.0.1', 'public'],
    ['192.169.0.1', 'public'],
    ['2606:4700:4700::1111', 'public'],
    ['2a00:1450:4001:81b::200e', 'public'],
    ['::ffff:8.8.8.8', 'public'],
    ['64:ff9b::8.8.8.8', 'public'], // NAT64 to a public IPv4 host: how IPv6-only networks reach them
  ];
  for (const [address, kind] of cases) {
    it(`${address} is ${kind}`, () => expect(classifyAddress(address)).to.equal(kind));
  }

  it('refuses to classify a host name', () => {
    expect(() => classifyAddress('db.example.com')).to.throw('not an IP address');
  });

  it('spells each address one way for comparison', () => {
    expect(canonicalAddress('::ffff:127.0.0.1')).to.equal('127.0.0.1');
    expect(canonicalAddress('2001:DB8::1')).to.equal(canonicalAddress('2001:db8:0:0:0:0:0:1'));
  });
});

describe('warehouse addresses: the DNS policy', () => {
  const resolve = resolverOf({
    'db.example.com': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
    'internal.example.com': ['10.0.0.5'],
    'mixed.example.com': ['93.184.216.34', '192.168.0.7'],
    localhost: ['127.0.0.1', '::1'],
    'service-db.internal': ['10.0.0.9'],
  });
  const closed = new DnsWarehouseAddressPolicy({ allowPrivate: false, serviceDatabase: null, resolve, localAddresses: () => [] });
  const open = new DnsWarehouseAddressPolicy({ allowPrivate: true, serviceDatabase: null, resolve, localAddresses: () => [] });

  it('allows public hosts, by address and by name', async () => {
    await closed.check('postgres://reader:pw@93.184.216.34:5432/sales');
    await closed.check('postgres://reader:pw@db.example.com/sales');
    await closed.check('postgres://reader@[2606:4700:4700::1111]/sales');
  });

  it('refuses a private address with the operator hint', async () => {
    const err = await refusal(closed.check('postgres://u@10.0.0.5/db'));
    expect(err.code).to.equal('forbidden');
    expect(err.message).to.equal(`The warehouse host "10.0.0.5" is on a private network; ${PRIVATE_TAIL}`);
    expect((await refusal(closed.check('postgres://u@[::1]:5432/db'))).message).to.equal(`The warehouse host "::1" is on a private network; ${PRIVATE_TAIL}`);
    expect((await refusal(closed.check('postgres://u@169.254.169.254/db'))).code).to.equal('forbidden');
    expect((await refusal(closed.check('postgres://u@100.64.1.1/db'))).code).to.equal('forbidden');
  });

  it('refuses a name resolving to a private address, and a name with any private address among public ones', async () => {
    expect((await refusal(closed.check('postgres://u@internal.example.com/db'))).message).to.equal(
      `The warehouse host "internal.example.com" resolves to 10.0.0.5, which is on a private network; ${PRIVATE_TAIL}`,
    );
    expect((await refusal(closed.check('postgres://u@mixed.example.com/db'))).message).to.contain('resolves to 192.168.0.7');
  });

  it('judges the host pg connects to: a `host` query parameter overrides the authority', async () => {
    expect((await refusal(closed.check('postgres://u@db.example.com/db?host=10.0.0.5'))).message).to.contain('"10.0.0.5"');
  });

  it('refuses Unix sockets and certificate files even when private networks are allowed', async () => {
    for (const url of ['postgres://u@db.example.com/db?host=/var/run/postgresql', 'postgres://u@%2Fvar%2Frun%2Fpostgresql/db']) {
      const err = await refusal(open.check(url));
      expect(err.code).to.equal('forbidden');
      expect(err.message).to.match(/^The warehouse URL names a Unix socket \("\/var\/run\/postgresql"\)/);
    }
    const files = await refusal(open.check('postgres://u@db.example.com/db?sslmode=require&ssl%72ootcert=/etc/passwd'));
    expect(files.message).to.contain("may not name files on this service's machine (sslrootcert)");
  });

  it('answers a host that does not resolve as unavailable, with the driver\'s text', async () => {
    const err = await refusal(closed.check('postgres://u@nowhere.example.com/db'));
    expect(err.code).to.equal('unavailable');
    expect(err.message).to.equal('could not connect to the warehouse: getaddrinfo ENOTFOUND nowhere.example.com');
  });

  it('allows private hosts when ALLOW_PRIVATE_WAREHOUSES is on', async () => {
    await open.check('postgres://u@10.0.0.5/db');
    await open.check('postgres://u@localhost:5432/db');
  });

  describe("the service's own database", () => {
    const onLoopback = new DnsWarehouseAddressPolicy({
      allowPrivate: true,
      serviceDatabase: { url: 'postgres://postgres@127.0.0.1:5432/dashpub' },
      resolve,
      localAddresses: () => ['192.168.0.7'],
    });

    it('is refused on any loopback spelling and on this machine\'s own addresses, whatever the user', async () => {
      for (const url of [
        'postgres://postgres@127.0.0.1:5432/dashpub',
        'postgres://reader:x@localhost/dashpub',
        'postgres://postgres@127.0.0.2:5432/dashpub',
        'postgres://postgres@[::1]:5432/dashpub',
        'postgres://postgres@[::ffff:127.0.0.1]/dashpub',
        'postgres://postgres@0.0.0.0/dashpub',
        'postgres://postgres@192.168.0.7/dashpub',
        'postgres://dashpub@localhost', // no database: pg uses the user's name
        'postgres://x@db.example.com:6000/dashpub?host=127.0.0.1&port=5432', // what pg connects to, not the authority
      ]) {
        const err = await refusal(onLoopback.check(url));
        expect(err.message, url).to.equal(OWN);
        expect(err.code).to.equal('forbidden');
      }
    });

    it('is refused on every database of that server, whatever its name, but not on another port', async () => {
      for (const url of [
        'postgres://postgres@127.0.0.1:5432/warehouse',
        'postgres://reader@[::1]/postgres',
        'postgres://reader@192.168.0.7:5432/anything',
      ]) {
        expect((await refusal(onLoopback.check(url))).message, url).to.equal(OWN);
      }
      await onLoopback.check('postgres://postgres@127.0.0.1:5433/dashpub');
    });

    it('matches a service host by its addresses', async () => {
      const remote = new DnsWarehouseAddressPolicy({
        allowPrivate: true,
        serviceDatabase: { url: 'postgres://svc:pw@service-db.internal/dashpub' },
        resolve,
        localAddresses: () => [],
      });
      expect((await refusal(remote.check('postgres://u@10.0.0.9/dashpub'))).message).to.equal(OWN);
      expect((await refusal(remote.check('postgres://u@10.0.0.9/warehouse'))).message).to.equal(OWN);
      await remote.check('postgres://u@10.0.0.5/dashpub');
    });

    it('is refused before the private-network rule, with its own text', async () => {
      const both = new DnsWarehouseAddressPolicy({
        allowPrivate: false,
        serviceDatabase: { url: 'postgres://postgres@127.0.0.1:5432/dashpub' },
        resolve,
        localAddresses: () => [],
      });
      expect((await refusal(both.check('postgres://postgres@localhost/dashpub'))).message).to.equal(OWN);
    });
  });
});
