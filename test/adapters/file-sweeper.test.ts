import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { DataSource } from 'typeorm';
import { DashboardStore } from '../../application/ports/dashboard-store.js';
import { FileSweeper } from '../../application/ports/file-sweeper.js';
import { RefreshStateStore } from '../../application/ports/refresh-state-store.js';
import { buildContainer, type AppContainer } from '../../shells/container.js';
import type { ToolRegistry } from '../../shells/koa/mcp/tool-registry.js';
import { createMigratedTestDatabase } from '../support/database.js';
import { makeUser, registry } from '../support/refresh-fixtures.js';
import { testSettings } from '../support/settings.js';

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const bytesOf = (text: string) => new TextEncoder().encode(text);

interface Backend {
  app: AppContainer;
  close(): Promise<void>;
}

function describeFileSweep(label: string, open: () => Promise<Backend>, options: { concurrentSessions: boolean }) {
  describe(`file sweep on ${label}`, function () {
    this.timeout(120_000);
    let backend: Backend;
    let tools: ToolRegistry;
    const get = <T>(id: symbol | (new (...args: never[]) => T)) => backend.app.container.get<T>(id as never);
    const store = () => get<DashboardStore>(DashboardStore);
    const sweeper = () => get<FileSweeper>(FileSweeper);
    const fileCount = async () => Number((await get<DataSource>(DataSource).query(`SELECT count(*) AS n FROM files`))[0].n);
    const backdateFiles = (seconds: number) =>
      get<DataSource>(DataSource).query(`UPDATE files SET stored_at = now() - make_interval(secs => $1)`, [seconds]);

    before(async () => {
      backend = await open();
      tools = registry(backend.app.container);
    });
    after(async () => backend?.close());

    async function publish(principal: Parameters<ToolRegistry['call']>[0], slug: string, body: string) {
      const result = await tools.call(principal, 'publish_dashboard', { path: slug, body });
      expect(result.isError ?? false, result.content[0]!.text).to.equal(false);
    }

    it('frees the bytes of pruned versions and keeps every file a kept version names', async () => {
      const { user, principal } = await makeUser(backend.app.container, 'free');
      const bodies = Array.from({ length: 25 }, (_, i) => `<h1>version ${i}</h1>`);
      for (const body of bodies) await publish(principal, 'pruned', body);
      await backdateFiles(7200);
      const before = await fileCount();

      const freed = await sweeper().sweep(3600);

      // 25 publishes keep the current version and 20 snapshots: the first four bodies went with their versions.
      expect(freed).to.equal(4);
      expect(await fileCount()).to.equal(before - 4);
      for (const body of bodies.slice(0, 4)) expect(await store().getFile(sha256(bytesOf(body)))).to.equal(null);
      const dashboard = (await store().findDashboard(({ kind: 'user', id: user.id } as const), 'pruned'))!;
      const versions = await store().listVersions(dashboard.id);
      expect(versions).to.have.length(21);
      for (const version of versions) {
        for (const entry of Object.values(version.files)) expect(await store().getFile(entry.sha256), version.id).to.not.equal(null);
      }
    });

    it('keeps unreferenced bytes stored within the grace period, and frees a deleted dashboard\'s after it', async () => {
      const { principal } = await makeUser(backend.app.container, 'free');
      const body = `<p>soon deleted ${Date.now()}</p>`;
      await publish(principal, 'doomed', body);
      expect((await tools.call(principal, 'delete_dashboard', { slug: 'doomed' })).isError ?? false).to.equal(false);

      await sweeper().sweep(3600);
      expect(await store().getFile(sha256(bytesOf(body)))).to.not.equal(null);
      await backdateFiles(7200);
      await sweeper().sweep(3600);
      expect(await store().getFile(sha256(bytesOf(body)))).to.equal(null);
    });

    it('keeps the files of a live render', async () => {
      const { user, principal } = await makeUser(backend.app.container, 'free');
      await publish(principal, 'live', '<p>published</p>');
      const dashboard = (await store().findDashboard(({ kind: 'user', id: user.id } as const), 'live'))!;
      const rendered = bytesOf(`<p>refreshed ${Date.now()}</p>`);
      await store().transaction(dashboard.owner, (tx) => tx.putFile(sha256(rendered), rendered));
      await get<RefreshStateStore>(RefreshStateStore).setLiveRender({
        dashboardId: dashboard.id,
        versionId: dashboard.currentVersionId,
        files: { 'index.html': { sha256: sha256(rendered), size: rendered.byteLength, contentType: 'text/html; charset=utf-8' } },
        renderedAt: new Date(),
      });
      await backdateFiles(7200);
      await sweeper().sweep(3600);
      expect(await store().getFile(sha256(rendered))).to.not.equal(null);
      expect(await store().getFile(sha256(bytesOf('<p>published</p>')))).to.not.equal(null);

      // A later publish leaves that render stale (never served again): its bytes go with the next sweep.
      await publish(principal, 'live', '<p>published again</p>');
      await backdateFiles(7200);
      await sweeper().sweep(3600);
      expect(await store().getFile(sha256(rendered))).to.equal(null);
      expect(await store().getFile(sha256(bytesOf('<p>published again</p>')))).to.not.equal(null);
    });

    if (options.concurrentSessions) {
      it('never frees bytes that a transaction in flight is storing again', async () => {
        const { user } = await makeUser(backend.app.container, 'free');
        const bytes = bytesOf(`<p>stored twice ${Date.now()}</p>`);
        const hash = sha256(bytes);
        await store().transaction(({ kind: 'user', id: user.id } as const), (tx) => tx.putFile(hash, bytes));
        await backdateFiles(7200); // old and unreferenced: the sweep's to take, unless someone stores it again

        let sweeping: Promise<number> | undefined;
        await store().transaction(({ kind: 'user', id: user.id } as const), async (tx) => {
          await tx.putFile(hash, bytes); // a publish storing the same bytes; its version row would follow
          sweeping = sweeper().sweep(3600);
          await new Promise((resolve) => setTimeout(resolve, 500)); // the sweep reaches the row and waits
        });
        await sweeping;
        expect(await store().getFile(hash)).to.not.equal(null);
      });
    }
  });
}

describeFileSweep(
  'PostgreSQL',
  async () => {
    const database = await createMigratedTestDatabase();
    const app = await buildContainer(testSettings({ databaseUrl: database.url }), { refreshWorkers: false });
    return { app, close: async () => (await app.close(), await database.drop()) };
  },
  { concurrentSessions: true },
);

describeFileSweep(
  'embedded PGlite',
  async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'dashpub-sweep-'));
    const app = await buildContainer(testSettings({ dataDir, databaseUrl: null }), { refreshWorkers: false });
    return { app, close: async () => (await app.close(), rmSync(dataDir, { recursive: true, force: true })) };
  },
  { concurrentSessions: false },
);
