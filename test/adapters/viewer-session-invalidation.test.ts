import { expect } from 'chai';
import { DataSource } from 'typeorm';
import { PgTokenInvalidations } from '../../adapters/postgres/pg-token-invalidations.js';
import { TypeormViewerTickets } from '../../adapters/postgres/typeorm-viewer-tickets.js';
import { DEFAULT_HOSTING_OPTIONS } from '../../application/hosting/hosting-options.js';
import { ViewerAccess } from '../../application/hosting/viewer-access.js';
import type { ViewerTickets } from '../../application/ports/viewer-tickets.js';
import { buildContainer, systemClock, type AppContainer } from '../../shells/container.js';
import { createMigratedTestDatabase, type TestDatabase } from '../support/database.js';
import { testSettings } from '../support/settings.js';

const silent = { info: () => {}, warn: () => {} };

/**
 * Two ViewerAccess instances on one PostgreSQL, each with its own LISTEN connection, stand for two server
 * processes: a sign-out through one is heard by the other, which then asks the store again.
 */
describe('adapters: viewer sessions end on every process (PostgreSQL invalidation channel)', function () {
  this.timeout(60_000);
  let database: TestDatabase;
  let admin: AppContainer;
  const listeners: PgTokenInvalidations[] = [];

  before(async () => {
    database = await createMigratedTestDatabase();
    admin = await buildContainer(testSettings({ databaseUrl: database.url }), { role: 'cli', refreshWorkers: false });
  });
  after(async () => {
    await Promise.all(listeners.map((l) => l.close()));
    await admin?.close();
    await database?.drop();
  });

  async function process(): Promise<{ viewers: ViewerAccess; lookups: () => number; heard: () => Promise<void> }> {
    const tickets: ViewerTickets = new TypeormViewerTickets(admin.container.get(DataSource));
    let lookups = 0;
    const findSession = tickets.findSession.bind(tickets);
    tickets.findSession = (hash, now) => {
      lookups++;
      return findSession(hash, now);
    };
    const listener = new PgTokenInvalidations(database.url, silent, { retryMs: 60_000 });
    listeners.push(listener);
    await listener.start();
    let signal: () => void = () => {};
    listener.subscribe({ invalidated: () => signal(), reset: () => {} });
    // Ten minutes of memory: only the channel can make this process ask again.
    const viewers = new ViewerAccess(tickets, systemClock, { ...DEFAULT_HOSTING_OPTIONS, metadataTtlMs: 600_000 }, listener);
    return { viewers, lookups: () => lookups, heard: () => new Promise<void>((resolve) => (signal = resolve)) };
  }

  it('forgets the remembered session when another process signs the user out', async () => {
    const one = await process();
    const other = await process();
    const state = one.viewers.newState();
    const ticket = await one.viewers.issueTicket('user-1', 'acme', state);
    const session = (await one.viewers.exchange('acme', ticket, state))!;
    for (let i = 0; i < 3; i++) expect(await other.viewers.viewer('acme', session.token)).to.equal('user-1');
    expect(other.lookups()).to.equal(1);

    const heard = other.heard();
    await one.viewers.endAllFor('user-1');
    expect(await one.viewers.viewer('acme', session.token)).to.equal(null);
    await heard;
    expect(await other.viewers.viewer('acme', session.token)).to.equal(null);
    expect(other.lookups()).to.equal(2);
  });
});
