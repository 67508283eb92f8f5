import { expect } from 'chai';
import net from 'node:net';
import { networkInterfaces } from 'node:os';
import { AccountStore } from '../../../application/ports/account-store.js';
import { escapeHtml } from '../../../domain/html.js';
import { createTestDatabase, createMigratedTestDatabase, type TestDatabase } from '../../support/database.js';
import { sql } from '../../support/warehouse.js';
import { csrfOf, WebClient } from '../../support/oauth-server.js';
import { startFullServer } from '../../support/server.js';
import { startThrowawayPostgres, type ThrowawayPostgres } from '../../support/throwaway-services.js';

const OWN_SERVER = "That URL leads to this service's own database server; add your warehouse, on a server of its own, instead.";
const roleRefusal = (role: string, why: string) =>
  `The warehouse role "${role}" ${why}; such a role reaches its database server's files, programs or other sessions' queries, ` +
  'so this service does not connect as it. Create a read-only role (not a superuser, and a member of none of ' +
  'pg_read_server_files, pg_write_server_files, pg_execute_server_program, pg_monitor), grant it SELECT on the tables to publish, ' +
  'and connect as that role.';
const idsOn = (html: string) => [...html.matchAll(/name="id" value="([0-9a-f-]{36})"/g)].map((m) => m[1]!).filter((id, i, all) => all.indexOf(id) === i);


/**
 * The attack of issue 30, item 2, through the web app's connections page: with ALLOW_PRIVATE_WAREHOUSES=true,
 * a pro user adds a warehouse URL naming another database on the service's own PostgreSQL server, as its
 * superuser, and reads the service's data files with pg_read_file. Every spelling of that server is refused,
 * whatever the database and the role; on a server of its own, a superuser (or a role that may become one or
 * read the server's files) is refused, and a read-only role is accepted.
 */
describe('security: a warehouse URL cannot reach the service database\'s own server', function () {
  this.timeout(120_000);
  let service: TestDatabase;
  let second: TestDatabase;
  let other: ThrowawayPostgres;
  let server: Awaited<ReturnType<typeof startFullServer>>;
  let web: WebClient;
  const ordinary = `dashpub_test_plain_${process.pid}`;

  const add = async (label: string, url: string) => {
    const page = await web.get('/connections');
    return web.post('/connections/add', { csrf: csrfOf(page), label, url, workspace: '' });
  };

  before(async () => {
    service = await createMigratedTestDatabase();
    second = await createTestDatabase('dashpub_test_second');
    await sql(service.url, `DROP ROLE IF EXISTS ${ordinary}; CREATE ROLE ${ordinary} LOGIN`);
    other = await startThrowawayPostgres();
    server = await startFullServer({ DATABASE_URL: service.url, SECRET_KEY: 'own-server-secret', REDIS_URL: '', ALLOW_PRIVATE_WAREHOUSES: 'true' });
    web = new WebClient(server.url, server.hosts.app);
    const form = await web.get('/sign-up');
    expect((await web.post('/sign-up', { csrf: csrfOf(form), handle: 'mallory', email: 'mallory@example.com', password: 'correct horse battery' })).status).to.equal(303);
    const accounts = server.server.app.container.get<AccountStore>(AccountStore);
    await accounts.setPlan((await accounts.findUserByHandle('mallory'))!.id, 'pro');
  });

  after(async () => {
    await server?.close();
    await other?.destroy();
    await second?.drop();
    await sql(service.url, `DROP ROLE IF EXISTS ${ordinary}`).catch(() => undefined); // the suite's role; gone already is fine
    await service?.drop();
  });

  it('refuses a second database on the same server, as superuser and as an ordinary role, however the host is spelled', async () => {
    const port = new URL(second.url).port || '5432';
    const hosts = ['127.0.0.1', 'localhost', '127.1', '0x7f000001', '[::1]', '[::ffff:127.0.0.1]', '0.0.0.0'];
    // Any address of this machine is the same server, if the server listens on it.
    const own = Object.values(networkInterfaces()).flatMap((list) => list ?? []).find((i) => i.family === 'IPv4' && !i.internal);
    if (own) hosts.push(own.address);
    for (const host of hosts) {
      for (const user of ['postgres', ordinary]) {
        const url = `postgres://${user}@${host}:${port}/${second.name}`;
        const refused = await add('Sneaky', url);
        expect(refused.status, url).to.equal(403);
        expect(refused.text, url).to.contain(escapeHtml(OWN_SERVER));
      }
    }
    expect(idsOn((await web.get('/connections')).text)).to.deep.equal([]);
  });

  it('refuses the same server reached through another port (a forward, a pooler, DNS answering differently), by its identity', async () => {
    const target = new URL(second.url);
    const forward = net.createServer((inbound) => {
      const outbound = net.connect(Number(target.port || 5432), target.hostname);
      inbound.pipe(outbound).pipe(inbound);
      inbound.on('error', () => outbound.destroy()); // either side closing ends the pair
      outbound.on('error', () => inbound.destroy());
    });
    await new Promise<void>((resolve) => forward.listen(0, '127.0.0.1', () => resolve()));
    try {
      const port = (forward.address() as net.AddressInfo).port;
      for (const user of ['postgres', ordinary]) {
        const refused = await add('Forwarded', `postgres://${user}@127.0.0.1:${port}/${second.name}`);
        expect(refused.status, user).to.equal(403);
        expect(refused.text, user).to.contain(escapeHtml(OWN_SERVER));
      }
    } finally {
      forward.close();
    }
    expect(idsOn((await web.get('/connections')).text)).to.deep.equal([]);
  });

  it('on a server of its own: refuses a superuser, a role that may become one and a file reader; accepts a read-only role', async () => {
    await sql(
      other.url,
      `CREATE ROLE heir LOGIN; GRANT postgres TO heir;
       CREATE ROLE filer LOGIN; GRANT pg_read_server_files TO filer;
       CREATE ROLE watcher LOGIN; GRANT pg_monitor TO watcher;
       CREATE TABLE sales (region text, amount int); INSERT INTO sales VALUES ('north', 1);
       CREATE ROLE reader LOGIN; GRANT USAGE ON SCHEMA public TO reader; GRANT SELECT ON ALL TABLES IN SCHEMA public TO reader;`,
    );
    const at = (role: string) => `postgres://${role}@127.0.0.1:${other.port}/postgres`;
    for (const [role, why] of [
      ['postgres', 'is a superuser'],
      ['heir', 'is a superuser'],
      ['filer', 'is a member of pg_read_server_files'],
      ['watcher', 'is a member of pg_monitor'],
    ] as const) {
      const refused = await add(`As ${role}`, at(role));
      expect(refused.status, role).to.equal(403);
      expect(refused.text, role).to.contain(escapeHtml(roleRefusal(role, why)));
    }
    expect(idsOn((await web.get('/connections')).text)).to.deep.equal([]);

    const accepted = await add('Reader', at('reader'));
    expect(accepted.status, accepted.text).to.equal(200);
    expect(accepted.text).to.contain('Added &quot;Reader&quot;: active.');
    const [id] = idsOn(accepted.text);

    // Granted a server role after the test: refused on its next use.
    await sql(other.url, 'GRANT pg_read_server_files TO reader');
    const retested = await web.post('/connections/test', { csrf: csrfOf(accepted), id: id! });
    expect(retested.text).to.contain('&quot;Reader&quot; is failing.');
    expect(retested.text).to.contain(escapeHtml(roleRefusal('reader', 'is a member of pg_read_server_files')));
  });
});
