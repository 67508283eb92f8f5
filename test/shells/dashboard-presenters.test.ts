import { expect } from 'chai';
import type { Manifest, VersionRecord } from '../../application/ports/dashboard-store.js';
import type { Target } from '../../domain/scope.js';
import {
  dashboardJson,
  deletedJson,
  foundJson,
  pageJson,
  publishJson,
  renamedJson,
  restoredJson,
  updatedJson,
  versionFoundJson,
  versionJson,
  versionListJson,
  versionNamedJson,
} from '../../shells/presenters/dashboards/dashboard-presenters.js';
import { detailView } from '../../shells/koa/app/dashboards-pages.js';
import { dashboardRowJson } from '../../shells/cli/dashboard-commands.js';
import type { DashboardDetail } from '../../application/dashboards/owner-dashboards.js';
import { aDashboard } from '../support/mothers.js';

/**
 * The dashboard answers' wire shape, made from the use cases' records: snake_case keys in a fixed order,
 * ISO times, canonical URLs from the target and slug. The use cases' own tests check the records.
 */
describe('dashboard presenters', () => {
  const urls = { dashboardScheme: 'https', dashboardDomain: 'dash.example' };
  const ada: Target = { kind: 'personal', userId: 'u1', handle: 'ada' };
  const acme: Target = { kind: 'workspace', workspaceId: 'w1', slug: 'acme' };
  const created = new Date('2024-03-01T10:00:00.000Z');
  const updated = new Date('2024-03-02T11:30:00.500Z');
  const files: Manifest = {
    'index.html': { sha256: 'a', size: 10, contentType: 'text/html; charset=utf-8' },
    'data.csv': { sha256: 'b', size: 7, contentType: 'text/csv; charset=utf-8' },
  };
  const dashboard = aDashboard({ kind: 'user', id: 'u1' }, { slug: 'sales', name: 'Sales', tags: ['q1'], chart: 'bar', currentVersionId: 'v2', createdAt: created, updatedAt: updated });
  const version = (id: string, over: Partial<VersionRecord> = {}): VersionRecord => ({
    id,
    dashboardId: dashboard.id,
    seq: 1,
    name: null,
    createdAt: created,
    createdBy: 'u1',
    files,
    spec: null,
    ...over,
  });
  const DASHBOARD_KEYS = ['slug', 'name', 'url', 'owner', 'workspace', 'visibility', 'tags', 'chart', 'connection', 'current_version_id', 'files', 'refreshable', 'created_at', 'updated_at'];

  it('shows a dashboard with its canonical URL, files in filename order and ISO times, keys in wire order', () => {
    const json = dashboardJson(urls, ada, dashboard, version('v2'));
    expect(Object.keys(json)).to.deep.equal(DASHBOARD_KEYS);
    expect(json).to.deep.include({
      slug: 'sales',
      name: 'Sales',
      url: 'https://ada.dash.example/sales',
      owner: 'ada',
      workspace: null,
      visibility: 'public',
      tags: ['q1'],
      chart: 'bar',
      connection: 'self',
      current_version_id: 'v2',
      refreshable: false,
      created_at: '2024-03-01T10:00:00.000Z',
      updated_at: '2024-03-02T11:30:00.500Z',
    });
    expect(json.files).to.deep.equal([
      { filename: 'data.csv', size: 7, content_type: 'text/csv; charset=utf-8', url: 'https://ada.dash.example/sales/data.csv' },
      { filename: 'index.html', size: 10, content_type: 'text/html; charset=utf-8', url: 'https://ada.dash.example/sales' },
    ]);
    expect(Object.keys(json.files[0]!)).to.deep.equal(['filename', 'size', 'content_type', 'url']);
  });

  it('names a workspace dashboard\'s owner and workspace, and reports a spec with queries as refreshable', () => {
    const json = dashboardJson(urls, acme, dashboard, version('v2', { spec: { queries: { q: { sql: 'SELECT 1' } } } }));
    expect(json).to.deep.include({ url: 'https://acme.dash.example/sales', owner: 'acme', workspace: 'acme', refreshable: true });
    expect(dashboardJson(urls, acme, dashboard, version('v2', { spec: { data: {} } })).refreshable).to.equal(false);
  });

  it('shows a version: current or not, body or spec, its files by name with sizes', () => {
    const snapshot = versionJson(version('v1', { seq: 3, name: 'first' }), 'v2');
    expect(snapshot).to.deep.equal({
      version_id: 'v1',
      seq: 3,
      name: 'first',
      created_at: '2024-03-01T10:00:00.000Z',
      current: false,
      files: [{ filename: 'data.csv', size: 7 }, { filename: 'index.html', size: 10 }],
      kind: 'body',
    });
    expect(Object.keys(snapshot)).to.deep.equal(['version_id', 'seq', 'name', 'created_at', 'current', 'files', 'kind']);
    expect(versionJson(version('v2', { spec: {} }), 'v2')).to.include({ current: true, kind: 'spec' });
  });

  it('publish_dashboard: the version written and the URL, or nulls on a dry run', () => {
    const base = { mode: 'body' as const, created: true, path: 'sales/index.html', bytes: 10, target: ada, slug: 'sales', warnings: ['w'] };
    const written = publishJson(urls, { ...base, dryRun: false, published: { dashboard, version: version('v2') } });
    expect(Object.keys(written)).to.deep.equal(['mode', 'dry_run', 'created', 'version_id', 'path', 'bytes', 'dashboard', 'url', 'warnings']);
    expect(written).to.deep.include({ mode: 'body', dry_run: false, created: true, version_id: 'v2', path: 'sales/index.html', bytes: 10, url: 'https://ada.dash.example/sales', warnings: ['w'] });
    expect(written.dashboard).to.deep.equal(dashboardJson(urls, ada, dashboard, version('v2')));
    const dry = publishJson(urls, { ...base, dryRun: true, published: null });
    expect(dry).to.deep.include({ dry_run: true, version_id: null, dashboard: null, url: 'https://ada.dash.example/sales' });
  });

  it('update, rename, delete and restore: the dashboard and what the call did, keys in wire order', () => {
    const current = version('v2');
    const updatedAnswer = updatedJson(urls, { target: ada, dashboard, current, changed: ['tags'], warnings: [] });
    expect(Object.keys(updatedAnswer)).to.deep.equal(['dashboard', 'changed', 'warnings']);
    const renamed = renamedJson(urls, { target: ada, dashboard, current, oldSlug: 'old' });
    expect(Object.keys(renamed)).to.deep.equal(['dashboard', 'old_slug', 'old_url']);
    expect(renamed).to.deep.include({ old_slug: 'old', old_url: 'https://ada.dash.example/old' });
    expect(renamed.dashboard.url).to.equal('https://ada.dash.example/sales');
    expect(deletedJson(urls, { target: acme, slug: 'gone', versionsDeleted: 4 })).to.deep.equal({ slug: 'gone', url: 'https://acme.dash.example/gone', versions_deleted: 4 });
    const restored = restoredJson(urls, { target: ada, dashboard, current, restoredFrom: 'v1' });
    expect(Object.keys(restored)).to.deep.equal(['dashboard', 'restored_from', 'version_id']);
    expect(restored).to.deep.include({ restored_from: 'v1', version_id: 'v2' });
  });

  it('list_dashboards: count, dashboards and next_cursor', () => {
    const page = pageJson(urls, { target: ada, dashboards: [{ dashboard, current: version('v2') }], nextCursor: 'c' });
    expect(Object.keys(page)).to.deep.equal(['count', 'dashboards', 'next_cursor']);
    expect(page.count).to.equal(1);
    expect(page.dashboards[0]!.url).to.equal('https://ada.dash.example/sales');
    expect(page.next_cursor).to.equal('c');
    expect(pageJson(urls, { target: ada, dashboards: [], nextCursor: null })).to.deep.equal({ count: 0, dashboards: [], next_cursor: null });
  });

  it('get_dashboard and the version tools: the dashboard or version with its slug and URL', () => {
    const body = { filename: 'index.html', encoding: 'utf8' as const, content: 'x', size: 1 };
    const found = foundJson(urls, { target: ada, dashboard, current: version('v2'), aliasOf: 'sales', body, params: [] });
    expect(Object.keys(found)).to.deep.equal(['dashboard', 'alias_of', 'body']);
    expect(found).to.deep.include({ alias_of: 'sales', body });
    const withParams = foundJson(urls, {
      target: ada, dashboard, current: version('v2'), aliasOf: null, body: null,
      params: [{ id: 'region', type: 'select', default: 'North', options: ['North', 'South'] }, { id: 'n', type: 'number', min: 0 }],
    });
    expect(withParams.params).to.deep.equal([
      { id: 'region', type: 'select', label: null, default: 'North', required: false, options: ['North', 'South'] },
      { id: 'n', type: 'number', label: null, default: null, required: false, min: 0 },
    ]);
    const listed = versionListJson(urls, { target: ada, dashboard, versions: [version('v1', { seq: 2 }), version('v0')] });
    expect(Object.keys(listed)).to.deep.equal(['slug', 'url', 'current_version_id', 'count', 'versions']);
    expect(listed).to.deep.include({ slug: 'sales', url: 'https://ada.dash.example/sales', current_version_id: 'v2', count: 2 });
    expect(listed.versions.map((v) => v.version_id)).to.deep.equal(['v1', 'v0']);
    const previewed = versionFoundJson(urls, { target: ada, dashboard, version: version('v1'), body: null });
    expect(Object.keys(previewed)).to.deep.equal(['slug', 'url', 'version', 'body']);
    expect(previewed.version.current).to.equal(false);
    const named = versionNamedJson(urls, { target: acme, dashboard, version: version('v1', { name: 'keep' }) });
    expect(Object.keys(named)).to.deep.equal(['slug', 'url', 'version']);
    expect(named).to.deep.include({ slug: 'sales', url: 'https://acme.dash.example/sales' });
    expect(named.version.name).to.equal('keep');
  });

  it('the dashboards page shows the same dashboard and versions, and each old slug\'s URL', () => {
    const detail: DashboardDetail = {
      owner: { name: 'ada', label: 'Personal account', kind: 'personal' },
      target: ada,
      dashboard,
      current: version('v2'),
      publishedAt: created,
      aliases: [{ owner: dashboard.owner, slug: 'old', dashboardId: dashboard.id }],
      versions: [version('v1')],
      refresh: { schedule: null, timezone: null, nextRuns: [], warnings: [], pending: null },
      runs: [],
      dailyViews: [],
      refreshRefusal: null,
      alerts: [],
      failureStreak: null,
    };
    const view = detailView(urls, detail);
    expect(view).to.deep.include({ owner: detail.owner, publishedAt: created, refresh: detail.refresh, refreshRefusal: null });
    expect(view.dashboard).to.deep.equal(dashboardJson(urls, ada, dashboard, version('v2')));
    expect(view.versions).to.deep.equal([versionJson(version('v1'), 'v2')]);
    expect(view.aliases).to.deep.equal([{ slug: 'old', url: 'https://ada.dash.example/old' }]);
  });

  it('the CLI\'s dashboard list row: owner, kind, slug, name, visibility, URL and ISO update time', () => {
    const row = dashboardRowJson(urls, { target: acme, dashboard });
    expect(row).to.deep.equal({ owner: 'acme', kind: 'workspace', slug: 'sales', name: 'Sales', visibility: 'public', url: 'https://acme.dash.example/sales', updated_at: '2024-03-02T11:30:00.500Z' });
    expect(Object.keys(row)).to.deep.equal(['owner', 'kind', 'slug', 'name', 'visibility', 'url', 'updated_at']);
  });
});
