import pngjs from 'pngjs';
import { ManageConnections } from '../../application/connections/manage-connections.js';
import { ViewerAccess } from '../../application/hosting/viewer-access.js';
import { DashboardStore } from '../../application/ports/dashboard-store.js';
import type { Settings } from '../../application/ports/settings.js';
import { RefreshDashboard } from '../../application/refresh/refresh-dashboard.js';
import { buildContainer, type AppContainer } from '../../shells/container.js';
import { createMigratedTestDatabase, type TestDatabase } from './database.js';
import { ManualClock } from './hosting-fixtures.js';
import { hostRequest, type RawResponse } from './hosting-http.js';
import { startHostingServer, StubWebSessions, type HostingServer } from './hosting-server.js';
import { makeUser, registry, seedSales } from './refresh-fixtures.js';
import { testSettings } from './settings.js';
import { createTestWarehouse, type TestWarehouse } from './warehouse.js';

/** A spec with one panel of each kind the images draw: a chart, a stat (in euros), a table and text. */
export const imageSpec = () => ({
  title: 'Sales',
  description: 'Daily sales by day.',
  queries: { daily: { sql: 'SELECT day::text AS day, sum(amount) AS total FROM sales GROUP BY day ORDER BY day' } },
  panels: [
    { id: 'total', type: 'stat', title: 'Last day', query: 'daily', value: 'total', width: 4, format: { type: 'currency', currency: 'EUR' } },
    { id: 'notes', type: 'text', title: 'Notes', text: 'Sales **net** of refunds.', width: 8 },
    { id: 'trend', type: 'line', title: 'Daily sales', query: 'daily', x: 'day', y: 'total', width: 12 },
    { id: 'rows', type: 'table', title: 'Rows', query: 'daily', width: 12 },
  ],
});

export interface ImageWorld {
  settings: Settings;
  app: AppContainer;
  server: HostingServer;
  warehouse: TestWarehouse;
  ada: { id: string; handle: string };
  bob: { id: string; handle: string };
  /** GET on `<sub>.<dashboard domain>`. */
  get(sub: string, path: string, headers?: Record<string, string>): Promise<RawResponse>;
  refresh(slug: string): Promise<void>;
  /** Ada's MCP tools call, failing on an error answer. */
  call(tool: string, args: Record<string, unknown>): Promise<void>;
  /** Ada publishes `body` as a new version of `slug`. */
  publishBody(slug: string, body: string): Promise<void>;
  /** The viewer cookie a signed-in user holds on `sub` (issued as the web app's ticket would be). */
  viewerCookie(userId: string, sub: string): Promise<string>;
  close(): Promise<void>;
}

/**
 * Ada (pro, with a warehouse connection) publishes the spec as the public `sales` and the private `books`,
 * plus a body page `plain`; each spec dashboard is refreshed once. Bob is another user. `dashboardsPages`
 * serves the web app's dashboards pages too.
 */
export async function imageWorld(options: { dashboardsPages?: boolean } = {}): Promise<ImageWorld> {
  const settings = testSettings();
  const database: TestDatabase = await createMigratedTestDatabase();
  const warehouse = await createTestWarehouse();
  await seedSales(warehouse.adminUrl);
  // Moved past the host's metadata TTL after each change, so the next request sees it (no sleeping).
  const clock = new ManualClock(Date.now());
  const app = await buildContainer({ ...settings, databaseUrl: database.url }, { refreshWorkers: false, clock });
  const server = await startHostingServer(app, settings, new StubWebSessions(), 0, options);
  const tools = registry(app.container);
  const { user: ada, principal } = await makeUser(app.container, 'pro');
  const { user: bob } = await makeUser(app.container, 'pro');
  const connection = await app.container.get(ManageConnections).create({ ownerUserId: ada.id, workspaceId: null, label: 'Sales', url: warehouse.url });
  for (const [path, visibility] of [['sales', 'public'], ['books', 'private']] as const) {
    const published = await tools.call(principal, 'publish_dashboard', { path, spec: imageSpec(), connection: connection.id, visibility });
    if (published.isError) throw new Error(published.content[0]!.text);
  }
  await tools.call(principal, 'publish_dashboard', { path: 'plain', body: '<!doctype html><title>Plain</title><p>plain</p>' });
  const store = app.container.get<DashboardStore>(DashboardStore);
  const refresh = async (slug: string) => {
    const dashboard = await store.findDashboard({ kind: 'user', id: ada.id }, slug);
    const run = await app.container.get(RefreshDashboard).run(dashboard!.id, 'manual');
    if (run?.outcome !== 'success') throw new Error(`refresh of ${slug} failed: ${run?.error}`);
    clock.advance(60_000);
  };
  await refresh('sales');
  await refresh('books');
  return {
    settings,
    app,
    server,
    warehouse,
    ada,
    bob,
    get: (sub, path, headers = {}) => hostRequest(server.port, `${sub}.${settings.dashboardDomain}`, path, { headers }),
    refresh,
    async call(tool, args) {
      const answered = await tools.call(principal, tool, args);
      if (answered.isError) throw new Error(answered.content[0]!.text);
      clock.advance(60_000);
    },
    async publishBody(slug, body) {
      const published = await tools.call(principal, 'publish_dashboard', { path: slug, body });
      if (published.isError) throw new Error(published.content[0]!.text);
      clock.advance(60_000);
    },
    async viewerCookie(userId, sub) {
      const viewers = app.container.get(ViewerAccess);
      const state = viewers.newState();
      const ticket = await viewers.issueTicket(userId, sub, state);
      const session = await viewers.exchange(sub, ticket, state);
      return `dashpub_viewer=${session!.token}`;
    },
    async close() {
      await server.close();
      await app.close();
      await warehouse.drop();
      await database.drop();
    },
  };
}

/** Width, height and the variance of the pixels' luminance (0 for a blank image), decoded with pngjs. */
export function pngStats(body: Buffer): { width: number; height: number; mean: number; variance: number } {
  const png = pngjs.PNG.sync.read(body);
  let sum = 0;
  let squares = 0;
  const count = png.width * png.height;
  for (let i = 0; i < count; i++) {
    const luminance = 0.2126 * png.data[i * 4]! + 0.7152 * png.data[i * 4 + 1]! + 0.0722 * png.data[i * 4 + 2]!;
    sum += luminance;
    squares += luminance * luminance;
  }
  const mean = sum / count;
  return { width: png.width, height: png.height, mean, variance: squares / count - mean * mean };
}
