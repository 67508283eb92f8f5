import net from 'node:net';
import { ManageConnections } from '../../application/connections/manage-connections.js';
import { DashboardStore } from '../../application/ports/dashboard-store.js';
import { RefreshDashboard } from '../../application/refresh/refresh-dashboard.js';
import type { HostingOptions } from '../../application/hosting/hosting-options.js';
import type { Settings } from '../../application/ports/settings.js';
import { buildContainer, type AppContainer } from '../../shells/container.js';
import type { ToolRegistry } from '../../shells/koa/mcp/tool-registry.js';
import { createMigratedTestDatabase, type TestDatabase } from './database.js';
import { ManualClock } from './hosting-fixtures.js';
import { hostRequest, type RawResponse } from './hosting-http.js';
import { startHostingServer, StubWebSessions, type HostingServer } from './hosting-server.js';
import { makeUser, registry, seedSales } from './refresh-fixtures.js';
import { testSettings } from './settings.js';
import { createTestWarehouse, type TestWarehouse } from './warehouse.js';

/** Sales filtered by a select, a date range and a number; region options listed by a query. */
export const paramSpec = (title = 'Sales by region') => ({
  title,
  queries: {
    totals: {
      sql: `SELECT coalesce(sum(amount), 0) AS total, count(*) AS sales FROM sales
             WHERE region = :region AND day BETWEEN :period.from AND :period.to AND amount >= :min_amount`,
    },
    regions: { sql: 'SELECT DISTINCT region FROM sales ORDER BY region' },
  },
  params: [
    { id: 'region', type: 'select', label: 'Region', default: 'north', options: { query: 'regions' } },
    { id: 'period', type: 'date_range', label: 'Period', default: '2024-01-01..2024-01-03' },
    { id: 'min_amount', type: 'number', label: 'Minimum amount', default: 0, min: 0 },
  ],
  panels: [
    { id: 'total', type: 'stat', title: 'Total', query: 'totals', value: 'total' },
    { id: 'count', type: 'stat', title: 'Sales', query: 'totals', value: 'sales' },
  ],
});

export interface ParamWorld {
  settings: Settings;
  /** The dashboard page's address, as a browser opens it. */
  url(path: string): string;
  database: TestDatabase;
  warehouse: TestWarehouse;
  app: AppContainer;
  server: HostingServer;
  clock: ManualClock;
  tools: ToolRegistry;
  principal: Awaited<ReturnType<typeof makeUser>>['principal'];
  handle: string;
  connectionId: string;
  get(path: string, server?: HostingServer): Promise<RawResponse>;
  /** Another instance on the same database, with its own host options. */
  instance(hosting: Partial<HostingOptions>): Promise<{ app: AppContainer; server: HostingServer }>;
  publish(path: string, spec: unknown, connection?: string, extra?: Record<string, unknown>): Promise<string>;
  /** A manual refresh of the dashboard `slug`, failing unless it succeeds. */
  refresh(slug: string): Promise<void>;
  close(): Promise<void>;
}

/** A loopback port free a moment ago, for a host whose name must carry its port (a browser's Host header). */
async function freePort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as net.AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** `browser`: the dashboards host listens on the port its domain names, so Chromium reaches it by name. */
export async function paramWorld(hosting: Partial<HostingOptions> = {}, options: { browser?: boolean } = {}): Promise<ParamWorld> {
  const port = options.browser ? await freePort() : 0;
  // `self` queries get room for a loaded machine: the budget under test is the render budget, not this one.
  const settings = testSettings({ selfQueryTimeoutSeconds: 60, ...(port ? { dashboardDomain: `dash.localhost:${port}` } : {}) });
  const database = await createMigratedTestDatabase();
  const warehouse: TestWarehouse = await createTestWarehouse();
  await seedSales(warehouse.adminUrl);
  const clock = new ManualClock(Date.now());
  const extra: Array<{ app: AppContainer; server: HostingServer }> = [];
  let hostPort = port;
  const start = async (options: Partial<HostingOptions>) => {
    const app = await buildContainer({ ...settings, databaseUrl: database.url }, { refreshWorkers: false, clock, hosting: options });
    const server = await startHostingServer(app, settings, new StubWebSessions(), hostPort);
    hostPort = 0; // other instances listen anywhere
    return { app, server };
  };
  const { app, server } = await start(hosting);
  const tools = registry(app.container);
  const { user, principal } = await makeUser(app.container, 'pro');
  const connection = await app.container.get(ManageConnections).create({ ownerUserId: user.id, workspaceId: null, label: 'Sales', url: warehouse.url });
  const host = `${user.handle}.${settings.dashboardDomain}`;
  return {
    settings, database, warehouse, app, server, clock, tools, principal, handle: user.handle, connectionId: connection.id,
    get: (path, on = server) => hostRequest(on.port, host, path),
    url: (path) => `http://${host}${path}`,
    async instance(options) {
      const started = await start({ ...hosting, ...options });
      extra.push(started);
      return started;
    },
    async publish(path, spec, connectionId = connection.id, extra = {}) {
      const published = await tools.call(principal, 'publish_dashboard', { path, spec, connection: connectionId, ...extra });
      clock.advance(60_000);
      if (published.isError) throw new Error(published.content[0]!.text);
      return published.content[0]!.text;
    },
    async refresh(slug) {
      const dashboard = await app.container.get<DashboardStore>(DashboardStore).findDashboard({ kind: 'user', id: user.id }, slug);
      const run = await app.container.get(RefreshDashboard).run(dashboard!.id, 'manual');
      clock.advance(60_000);
      if (run?.outcome !== 'success') throw new Error(`refresh of ${slug} failed: ${run?.error}`);
    },
    async close() {
      for (const other of extra) {
        await other.server.close();
        await other.app.close();
      }
      await server.close();
      await app.close();
      await warehouse.drop();
      await database.drop();
    },
  };
}

/** The stat tiles' values on a page, in panel order. */
export const statValues = (html: string) => [...html.matchAll(/<p class="stat-value"[^>]*>([^<]*)<\/p>/g)].map((m) => m[1]);
export const notices = (html: string) => [...html.matchAll(/<p class="notice" role="status">([^<]*)<\/p>/g)].map((m) => m[1]);
