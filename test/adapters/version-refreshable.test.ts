import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { VersionRefreshable1700000015700 } from '../../adapters/postgres/migrations/1700000015700-version-refreshable.js';
import { PostgresDashboardStore } from '../../adapters/postgres/postgres-dashboard-store.js';
import type { OwnerRef } from '../../domain/scope.js';
import { aDashboard } from '../support/mothers.js';
import { openEmbeddedDatabase, openTestDatabase, suiteDatabase, whileMigratedDown, type OpenDatabase } from '../support/database.js';

const FILES = { 'index.html': { sha256: 'a'.repeat(64), size: 5, contentType: 'text/html; charset=utf-8' } };
const WITH_QUERIES = { title: 'Q', queries: { n: { sql: 'SELECT 1 AS n' } }, panels: [] };
const INLINE_ONLY = { title: 'S', data: { rows: [{ n: 1 }] }, panels: [] };

/** A dashboard with one version of `spec`, written through the store's transaction writes (plain INSERTs). */
async function insertWithSpec(store: PostgresDashboardStore, owner: OwnerRef, slug: string, spec: unknown): Promise<void> {
  const now = new Date();
  const record = aDashboard(owner, { slug, createdBy: randomUUID(), createdAt: now, updatedAt: now });
  await store.transaction(owner, async (tx) => {
    await tx.insertDashboard(record);
    await tx.insertVersion({ id: record.currentVersionId, dashboardId: record.id, seq: 1, name: null, createdAt: now, createdBy: randomUUID(), files: FILES, spec });
  });
}

/** One spec publish through `dashpub_publish`, the production publish path. */
async function publishSpec(store: PostgresDashboardStore, owner: OwnerRef, slug: string, spec: unknown): Promise<void> {
  await store.publish(owner, slug, [], (state) => {
    const now = new Date();
    const base = aDashboard(owner, { slug, createdBy: randomUUID(), createdAt: now, updatedAt: now });
    const version = { id: randomUUID(), dashboardId: state.dashboard?.id ?? base.id, name: null, createdAt: now, createdBy: randomUUID(), files: FILES, spec };
    const dashboard = state.dashboard ? { ...state.dashboard, currentVersionId: version.id, updatedAt: now } : { ...base, currentVersionId: version.id };
    return { write: { dashboard, isNew: state.dashboard === null, version }, result: null };
  });
}

async function listedRefreshable(store: PostgresDashboardStore, owner: OwnerRef): Promise<Record<string, boolean>> {
  return Object.fromEntries((await store.listWithCurrent(owner, { limit: 10 })).map(({ dashboard, current }) => [dashboard.slug, current!.refreshable]));
}

/** The stored `refreshable` of migration 1700000015700, on PostgreSQL and on the embedded PGlite. */
function describeVersionRefreshable(name: string, open: OpenDatabase): void {
  describe(`dashboard_versions.refreshable (${name})`, function () {
    this.timeout(120_000);
    const db = suiteDatabase(open);

    it('fills the versions stored before it, from their specs', async () => {
      const owner: OwnerRef = { kind: 'user', id: randomUUID() };
      const store = new PostgresDashboardStore(db.dataSource);
      await whileMigratedDown(db.dataSource, new VersionRefreshable1700000015700(), async () => {
        const [column] = await db.dataSource.query(`SELECT count(*)::int AS n FROM information_schema.columns WHERE table_name = 'dashboard_versions' AND column_name = 'refreshable'`);
        expect(column.n).to.equal(0);
        await insertWithSpec(store, owner, 'queries', WITH_QUERIES);
        await insertWithSpec(store, owner, 'inline', INLINE_ONLY);
        await insertWithSpec(store, owner, 'body', null);
      });
      expect(await listedRefreshable(new PostgresDashboardStore(db.dataSource), owner)).to.deep.equal({ body: false, inline: false, queries: true });
    });

    it('follows each publish through dashpub_publish, a new version with queries and one without', async () => {
      const owner: OwnerRef = { kind: 'user', id: randomUUID() };
      const store = new PostgresDashboardStore(db.dataSource, { preparedStatements: true });
      await publishSpec(store, owner, 'report', INLINE_ONLY);
      expect(await listedRefreshable(store, owner)).to.deep.equal({ report: false });
      await publishSpec(store, owner, 'report', WITH_QUERIES);
      expect(await listedRefreshable(store, owner)).to.deep.equal({ report: true });
      await publishSpec(store, owner, 'report', null);
      expect(await listedRefreshable(store, owner)).to.deep.equal({ report: false });
    });

    it('cannot be written: PostgreSQL keeps it from the spec', async () => {
      const owner: OwnerRef = { kind: 'user', id: randomUUID() };
      const store = new PostgresDashboardStore(db.dataSource);
      await insertWithSpec(store, owner, 'fixed', INLINE_ONLY);
      const refused = await db.dataSource.query(`UPDATE dashboard_versions SET refreshable = true`).then(
        () => null,
        (err: Error) => err.message,
      );
      expect(refused).to.match(/can only be updated to DEFAULT/);
      expect(await listedRefreshable(store, owner)).to.deep.equal({ fixed: false });
    });
  });
}

describeVersionRefreshable('PostgreSQL', openTestDatabase);

describeVersionRefreshable('embedded PGlite', () => openEmbeddedDatabase('dashpub-refreshable'));
