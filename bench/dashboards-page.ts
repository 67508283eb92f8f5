/**
 * The web app's dashboards list at 10,000 dashboards of one owner, on PostgreSQL: one page (50 rows with
 * last refresh and 30-day views) as the page reads it (DashboardCatalog, one statement), against the same
 * rows read one query per row (list, then current version, last run and views per dashboard). Rounds
 * interleaved. Run with `npm run build && node dist/bench/dashboards-page.js [rounds]`; needs PostgreSQL
 * at DATABASE_URL's server (default 127.0.0.1:5432, a throwaway `dashpub_test_*` database). Not a test.
 */
import { cpus } from 'node:os';
import { DataSource } from 'typeorm';
import { OwnerDashboards } from '../application/dashboards/owner-dashboards.js';
import { AccountStore } from '../application/ports/account-store.js';
import { DashboardStore } from '../application/ports/dashboard-store.js';
import { RefreshStateStore } from '../application/ports/refresh-state-store.js';
import { ViewCounter } from '../application/ports/view-counter.js';
import { buildContainer } from '../shells/container.js';
import { createTestDatabase } from '../test/support/database.js';
import { testSettings } from '../test/support/settings.js';
import { updateLatestResult } from './support.js';

const DASHBOARDS = 10_000;
const rounds = Number(process.argv[2] ?? 5);
const CALLS = 20;

const database = await createTestDatabase('dashpub_test_bench');
const app = await buildContainer(testSettings({ databaseUrl: database.url }), { role: 'cli' });
try {
  const c = app.container;
  const user = await c.get<AccountStore>(AccountStore).createUser({ handle: 'bench', email: 'bench@example.com', passwordHash: null, plan: 'free' });
  const sql = c.get(DataSource);
  // 10,000 dashboards, every third refreshable with three runs, 30 days of views each.
  await sql.query(
    `WITH d AS (SELECT g, gen_random_uuid() AS id, gen_random_uuid() AS v FROM generate_series(1, $2) g),
     ins AS (INSERT INTO dashboards (id, owner_kind, owner_id, slug, name, tags, visibility, connection, current_version_id, created_by, created_at, updated_at)
             SELECT id, 'user', $1, 'dash-' || lpad(g::text, 5, '0'), 'Dashboard ' || g, CASE WHEN g % 10 = 0 THEN ARRAY['ten'] ELSE '{}' END,
                    CASE WHEN g % 4 = 0 THEN 'private' ELSE 'public' END, 'self', v, $1, now(), now() FROM d RETURNING id)
     INSERT INTO dashboard_versions (id, dashboard_id, seq, created_at, created_by, files, spec)
     SELECT v, id, 1, now(), $1, '{}'::jsonb, CASE WHEN g % 3 = 0 THEN '{"title":"t","queries":{"q":{"sql":"select 1"}},"panels":[]}'::jsonb END FROM d`,
    [user.id, DASHBOARDS],
  );
  await sql.query(
    `INSERT INTO refresh_runs (id, dashboard_id, trigger, started_at, duration_ms, outcome, rows, error)
     SELECT gen_random_uuid(), d.id, 'schedule', now() - (n || ' hours')::interval, 10, 'success', 1, NULL
       FROM dashboards d JOIN dashboard_versions v ON v.id = d.current_version_id, generate_series(1, 3) n WHERE v.spec IS NOT NULL`,
  );
  await sql.query(
    `INSERT INTO dashboard_views_daily (dashboard_id, day, views)
     SELECT d.id, current_date - n, (n * 7) % 13 FROM dashboards d, generate_series(0, 29) n`,
  );
  await sql.query('ANALYZE');

  const pages = c.get(OwnerDashboards);
  const store = c.get<DashboardStore>(DashboardStore);
  const state = c.get<RefreshStateStore>(RefreshStateStore);
  const views = c.get<ViewCounter>(ViewCounter);
  const owner = { kind: 'user' as const, id: user.id };
  const middle = (await pages.list(user.id, 'bench', { search: 'dash-05000' })).rows[0]!.slug;
  const { encodeCursor } = await import('../application/dashboards/list-dashboards.js');
  const cursor = encodeCursor(middle);
  const fromDay = new Date(Date.now() - 29 * 86_400_000).toISOString().slice(0, 10);

  const variants: Record<string, () => Promise<number>> = {
    'page read (one statement)': async () => (await pages.list(user.id, 'bench', { cursor })).rows.length,
    'one query per row': async () => {
      const records = await store.list(owner, { afterSlug: middle, limit: 51 });
      let n = 0;
      for (const r of records.slice(0, 50)) {
        await store.getVersion(r.id, r.currentVersionId);
        await state.lastRun(r.id);
        await views.daily([r.id], fromDay);
        n++;
      }
      return n;
    },
    'page read, search + refreshable': async () => (await pages.list(user.id, 'bench', { search: 'Dashboard 9', kind: 'refreshable' })).rows.length,
  };
  const times: Record<string, number[]> = Object.fromEntries(Object.keys(variants).map((k) => [k, []]));
  for (const run of Object.values(variants)) await run(); // warm-up
  for (let round = 0; round < rounds; round++) {
    for (const [name, run] of Object.entries(variants)) {
      const started = performance.now();
      for (let i = 0; i < CALLS; i++) if ((await run()) === 0) throw new Error(`${name}: empty page`);
      times[name]!.push((performance.now() - started) / CALLS);
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  console.log(`Dashboards page at ${DASHBOARDS} dashboards of one owner, 50 rows, ${rounds} interleaved rounds of ${CALLS} calls (${new Date().toISOString()}, ${process.version}, ${cpus()[0]?.model ?? 'cpu'} x${cpus().length})`);
  console.log('| read | median per page | every round |');
  console.log('|---|---:|---|');
  for (const [name, xs] of Object.entries(times)) console.log(`| ${name} | ${median(xs).toFixed(2)} ms | ${xs.map((x) => x.toFixed(2)).join(' / ')} ms |`);
  const [page, perRow] = [median(times['page read (one statement)']!), median(times['one query per row']!)];
  updateLatestResult('dashboards-page', `**${page.toFixed(1)} ms** against ${perRow.toFixed(1)} ms (${(page / perRow).toFixed(2)}×)`);
} finally {
  await app.close();
  await database.drop();
}
