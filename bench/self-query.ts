/**
 * `self` query benchmark: one `self` query through validate_cube_sql (MCP over HTTP to the real server,
 * which reads the owner's rows, checks the warm sandbox and runs EXPLAIN and the query in it) against the
 * same query on a warm PGlite in this process holding the same rows. Rounds alternate which goes first;
 * the target is a median ratio of at most 3 (issue 30, item 3). Writes its result into its row of docs/benchmarks.md.
 *
 *   npm run bench:self -- [--rounds 15] [--dashboards 20] [--days 365]
 *
 * PostgreSQL where the tests find it (DATABASE_URL, default postgres://postgres@127.0.0.1:5432/test).
 */
import { PGlite } from '@electric-sql/pglite';
import { AccountStore } from '../application/ports/account-store.js';
import { DashboardStore } from '../application/ports/dashboard-store.js';
import { ViewCounter, type DailyViews } from '../application/ports/view-counter.js';
import { SelfMetricsService } from '../application/connections/self-metrics.js';
import { METRICS_SCHEMA } from '../adapters/warehouse/self-metrics-worker.js';
import { buildContainer } from '../shells/container.js';
import { createTestDatabase } from '../test/support/database.js';
import { aUser } from '../test/support/mothers.js';
import { callToolOverHttp, startFullServer } from '../test/support/server.js';
import { TEST_SECRET_KEY, testSettings } from '../test/support/settings.js';
import { mintAccessToken } from '../test/support/tokens.js';
import { fmt, median, option, updateLatestResult } from './support.js';

const ROUNDS = Number(option('rounds', '15'));
const DASHBOARDS = Number(option('dashboards', '20'));
const DAYS = Number(option('days', '365'));
const QUERY = `select d.slug, d.name, date_trunc('month', v.day)::date as month, sum(v.views) as views, count(*) as days
  from daily_views v join dashboards d using (slug)
 group by 1, 2, 3 order by 1, 3`;

async function main(): Promise<void> {
  const database = await createTestDatabase();
  const server = await startFullServer({ DATABASE_URL: database.url, REDIS_URL: '', LOG_LEVEL: 'error' });
  const admin = await buildContainer(testSettings({ databaseUrl: database.url, secretKey: TEST_SECRET_KEY }), { role: 'cli', refreshWorkers: false });
  const local = new PGlite();
  try {
    const user = await aUser(admin.container.get<AccountStore>(AccountStore), { handle: 'benchself' });
    const token = (await mintAccessToken(admin.container, { userId: user.id, lock: { kind: 'personal' } })).access_token;
    const owner = { kind: 'user' as const, id: user.id };
    const views: DailyViews[] = [];
    for (let i = 0; i < DASHBOARDS; i++) {
      const published = await callToolOverHttp(server, token, 'publish_dashboard', { path: `page-${i}`, body: `<p>${i}</p>`, name: `Page ${i}` });
      if (published.isError) throw new Error(published.text);
      const dashboard = (await admin.container.get<DashboardStore>(DashboardStore).findDashboard(owner, `page-${i}`))!;
      for (let d = 0; d < DAYS; d++) views.push({ dashboardId: dashboard.id, day: new Date(Date.UTC(2025, 0, 1 + d)).toISOString().slice(0, 10), views: (i * 7 + d) % 50 });
    }
    await admin.container.get<ViewCounter>(ViewCounter).add(views);

    // The same rows in a PGlite of this process, as the sandbox gets them.
    const tables = await admin.container.get(SelfMetricsService).tables(owner);
    await local.exec(METRICS_SCHEMA);
    for (const [table, rows] of Object.entries(tables)) {
      if (rows.length) await local.query(`INSERT INTO ${table} SELECT * FROM json_populate_recordset(NULL::${table}, $1::json)`, [JSON.stringify(rows)]);
    }

    const viaTool = async () => {
      const started = performance.now();
      const r = await callToolOverHttp(server, token, 'validate_cube_sql', { connection: 'self', sql: QUERY });
      if (r.isError) throw new Error(r.text);
      return performance.now() - started;
    };
    const inProcess = async () => {
      const started = performance.now();
      await local.query(QUERY);
      return performance.now() - started;
    };
    for (let i = 0; i < 3; i++) {
      await viaTool();
      await inProcess();
    }
    const tool: number[] = [];
    const pglite: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      if (round % 2 === 0) {
        tool.push(await viaTool());
        pglite.push(await inProcess());
      } else {
        pglite.push(await inProcess());
        tool.push(await viaTool());
      }
    }
    const ratio = median(tool) / median(pglite);
    console.log(`self query (${DASHBOARDS} dashboards × ${DAYS} days of views, ${ROUNDS} interleaved rounds): validate_cube_sql median ${fmt(median(tool))} ms, warm in-process PGlite median ${fmt(median(pglite))} ms`);
    updateLatestResult('self-query', `**${fmt(ratio, 2)}×** (${fmt(median(tool))} ms ÷ ${fmt(median(pglite))} ms)`);
    process.exitCode = ratio <= 3 ? 0 : 1;
  } finally {
    await local.close();
    await server.close();
    await admin.close();
    await database.drop();
  }
}

await main();
