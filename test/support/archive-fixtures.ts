import { expect } from 'chai';
import type { Container } from 'inversify';
import { AccountStore } from '../../application/ports/account-store.js';
import { DashboardStore, type DashboardRecord, type VersionRecord } from '../../application/ports/dashboard-store.js';
import { RefreshStateStore } from '../../application/ports/refresh-state-store.js';
import type { Principal } from '../../application/ports/token-verifier.js';
import type { OwnerRef } from '../../domain/scope.js';
import { registry } from './refresh-fixtures.js';
import { aUser, aPrincipal } from './mothers.js';

export const inlineSpec = {
  title: 'KPIs',
  data: { k: [{ label: 'users', n: 42 }] },
  panels: [{ id: 'users', type: 'stat', query: 'k', value: 'n' }],
};

export const selfSpec = {
  title: 'My dashboards',
  queries: { list: { sql: 'SELECT slug, name FROM dashboards ORDER BY slug' } },
  panels: [{ id: 't', type: 'table', query: 'list' }],
};

export const principalOf = (userId: string): Principal => aPrincipal(userId, { grantId: `archive-${userId}` });

/**
 * The dashboards the export/import tests move around, published through the MCP tools:
 * `sales` (3 versions, the middle one named, two files), `report` (renamed from `old-report`),
 * `secret` (private), `kpis` (spec with inline data), `live` (spec on self with a refresh schedule),
 * and, when a connection id is given, `wh` (inline spec bound to that warehouse connection).
 */
export async function publishFixtureDashboards(container: Container, userId: string, warehouseConnectionId?: string): Promise<void> {
  const tools = registry(container);
  const ada = principalOf(userId);
  const ok = async (name: string, args: Record<string, unknown>) => {
    const result = await tools.call(ada, name, args);
    expect(result.isError, result.content[0]?.text).to.not.equal(true);
    return result;
  };
  await ok('publish_dashboard', { path: 'sales', body: '<h1>Sales v1</h1>', name: 'Sales', tags: ['finance', 'weekly'], chart: 'bar' });
  await ok('publish_dashboard', { path: 'sales/data.csv', body: 'day,total\n2025-01-01,3\n' });
  await ok('publish_dashboard', { path: 'sales', body: '<h1>Sales v3</h1>' });
  const store = container.get<DashboardStore>(DashboardStore);
  const sales = (await store.findDashboard({ kind: 'user', id: userId }, 'sales'))!;
  const second = (await store.listVersions(sales.id)).find((v) => v.seq === 2)!;
  await ok('update_dashboard_version', { slug: 'sales', version_id: second.id, name: 'launch' });
  await ok('publish_dashboard', { path: 'old-report', body: '<p>report</p>', name: 'Report' });
  await ok('rename_dashboard', { slug: 'old-report', new_slug: 'report' });
  await ok('publish_dashboard', { path: 'secret', body: '<p>secret</p>', visibility: 'private' });
  await ok('publish_dashboard', { path: 'kpis', spec: inlineSpec, name: 'KPIs' });
  await ok('publish_dashboard', { path: 'live', spec: selfSpec, name: 'Live' });
  await ok('set_refresh_schedule', { slug: 'live', schedule: '0 6 * * *', timezone: 'Europe/Paris' });
  if (warehouseConnectionId) await ok('publish_dashboard', { path: 'wh', spec: { ...inlineSpec, title: 'Warehouse' }, connection: warehouseConnectionId });
}

export interface DashboardSnapshot {
  record: DashboardRecord;
  /** Oldest first. */
  versions: VersionRecord[];
  aliases: string[];
  schedule: { cron: string; timezone: string; hasNextRun: boolean } | null;
  /** filename → bytes of every version, oldest first. */
  bytes: Array<Record<string, string>>;
}

/** Everything about one owner's dashboards that an export/import must carry, keyed by slug. */
export async function snapshotOwner(container: Container, owner: OwnerRef): Promise<Map<string, DashboardSnapshot>> {
  const store = container.get<DashboardStore>(DashboardStore);
  const refresh = container.get<RefreshStateStore>(RefreshStateStore);
  const result = new Map<string, DashboardSnapshot>();
  for (const record of await store.list(owner, { limit: 100 })) {
    const versions = (await store.listVersions(record.id)).reverse();
    const bytes: Array<Record<string, string>> = [];
    for (const v of versions) {
      const files: Record<string, string> = {};
      for (const [filename, f] of Object.entries(v.files)) files[filename] = Buffer.from((await store.getFile(f.sha256))!).toString('base64');
      bytes.push(files);
    }
    const schedule = await refresh.getSchedule(record.id);
    result.set(record.slug, {
      record,
      versions,
      aliases: (await store.listAliases(record.id)).map((a) => a.slug),
      schedule: schedule && { cron: schedule.cron, timezone: schedule.timezone, hasNextRun: schedule.nextRunAt !== null },
      bytes,
    });
  }
  return result;
}

/** The imported copy matches the original in everything but ids and the creator. */
export function expectSameDashboards(copy: Map<string, DashboardSnapshot>, original: Map<string, DashboardSnapshot>, slugs = [...original.keys()]): void {
  expect([...copy.keys()].sort()).to.deep.equal([...slugs].sort());
  for (const slug of slugs) {
    const a = original.get(slug)!;
    const b = copy.get(slug)!;
    const meta = (s: DashboardSnapshot) => {
      const { id, owner, currentVersionId, createdBy, ...rest } = s.record;
      return rest;
    };
    expect(meta(b), slug).to.deep.equal(meta(a));
    expect(b.record.id, slug).to.not.equal(a.record.id);
    expect(b.versions.map((v) => [v.seq, v.name, v.createdAt.toISOString(), v.files, v.spec]), slug).to.deep.equal(
      a.versions.map((v, i) => [i + 1, v.name, v.createdAt.toISOString(), v.files, v.spec]),
    );
    expect(b.versions.map((v) => v.id)).to.not.include.members(a.versions.map((v) => v.id));
    const currentIndex = (s: DashboardSnapshot) => s.versions.findIndex((v) => v.id === s.record.currentVersionId);
    expect(currentIndex(b), slug).to.equal(currentIndex(a)).and.to.be.at.least(0);
    expect(b.aliases, slug).to.deep.equal(a.aliases);
    expect(b.schedule, slug).to.deep.equal(a.schedule);
    expect(b.bytes, slug).to.deep.equal(a.bytes);
  }
}

export async function createUser(container: Container, handle: string, plan: 'free' | 'pro' = 'free') {
  return aUser(container.get<AccountStore>(AccountStore), { handle, plan });
}
