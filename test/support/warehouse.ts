import net from 'node:net';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { createTestDatabase, TEST_DATABASE_URL } from './database.js';

export interface TestWarehouse {
  /** What a user adds as the connection: a read-only role, through a port other than the service database's. */
  url: string;
  /** The superuser on the database's own port, for seeding and changing the data. */
  adminUrl: string;
  name: string;
  /** The read-only role `url` logs in as. */
  role: string;
  drop(): Promise<void>;
}

let forwarder: Promise<number> | undefined;

/**
 * A TCP forwarder to the test server on a port of its own. The service refuses any warehouse on its own
 * database's server (address and port), so the tests' warehouses, which live on that same server, are
 * reached as a separate server would be: another port, behind which the warehouse's own role decides.
 */
function forwarderPort(): Promise<number> {
  const target = new URL(TEST_DATABASE_URL);
  forwarder ??= new Promise((resolve, reject) => {
    const server = net.createServer((inbound) => {
      const outbound = net.connect(Number(target.port || 5432), target.hostname);
      inbound.pipe(outbound).pipe(inbound);
      inbound.on('error', () => outbound.destroy()); // either side closing ends the pair
      outbound.on('error', () => inbound.destroy());
    });
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.unref();
      resolve((server.address() as net.AddressInfo).port);
    });
  });
  return forwarder;
}

/**
 * A warehouse database `<prefix>_<random>` on the test server with a login role that may only read
 * (pg_read_all_data, so tables seeded later are readable too), reached through the forwarder.
 */
export async function createTestWarehouse(prefix = 'dashpub_test_wh'): Promise<TestWarehouse> {
  const database = await createTestDatabase(prefix);
  const role = `dashpub_test_reader_${randomBytes(6).toString('hex')}`;
  await adminQuery(`CREATE ROLE "${role}" LOGIN IN ROLE pg_read_all_data`);
  const url = new URL(database.url);
  url.username = role;
  url.password = '';
  url.port = String(await forwarderPort());
  return {
    name: database.name,
    url: url.toString(),
    adminUrl: database.url,
    role,
    async drop() {
      await database.drop();
      await adminQuery(`DROP ROLE IF EXISTS "${role}"`);
    },
  };
}

async function adminQuery(text: string): Promise<void> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}
