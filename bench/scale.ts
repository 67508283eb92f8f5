/**
 * Scale benchmark: one owner with 1k dashboards and one with 1M, bulk-loaded in SQL into the real tables
 * (dashboards, their versions, the file they name; the tag table fills through its trigger), in one
 * throwaway `dashpub_test_bench_scale_*` database. Times, at c1 through PostgresDashboardStore.listWithCurrent
 * (the one statement behind a list_dashboards page): the first page, a page from the middle by cursor, and
 * a page of a tag held by 1 in 1,000 dashboards. Rounds interleave the two owners; each round's p50 is
 * written with the plans (EXPLAIN) to the "Scale" section of docs/benchmarks.md. Then the rare tag's floor: the
 * same tag walk answering less of a row (FLOOR), for what a page of 51 costs against a page of 1 in any case.
 * Then the same pages through `list_dashboards` over HTTP, with and without the list cache (bench/scale-endpoint.ts).
 *
 *   npm run bench:scale -- [--large 1000000] [--rounds 5] [--iterations 200]
 *
 * PostgreSQL is where the tests find it (DATABASE_URL, default postgres://postgres@127.0.0.1:5432/test).
 */
import { randomUUID } from 'node:crypto';
import type { Pool } from 'pg';
import type { DataSource } from 'typeorm';
import { listSql } from '../adapters/postgres/dashboard-sql.js';
import { PostgresDashboardStore } from '../adapters/postgres/postgres-dashboard-store.js';
import type { ListQuery } from '../application/ports/dashboard-store.js';
import type { OwnerRef } from '../domain/scope.js';
import type { SpawnedServer } from '../test/support/server.js';
import { listedCount, listOverHttp, pageArguments, withOwners, type EndpointServer } from './scale-endpoint.js';
import { fmt, machineLine, median, option, timeCalls, updateLatestResult } from './support.js';

const SMALL = 1_000;
const LARGE = Number(option('large', '1000000'));
const ROUNDS = Number(option('rounds', '5'));
const ITERATIONS = Number(option('iterations', '200'));
const PAGE = 51; // list_dashboards asks for one more than its default page of 50
/** Holders of the tag that fills a page at both sizes, so its row compares the same page (1 in 16,667 at 1M). */
const SIXTY = 60;

const slugOf = (i: number) => `d-${String(i).padStart(7, '0')}`;

/**
 * `count` dashboards of one owner, each with one version naming one stored file; 1 in 1,000 tagged `rare`, and
 * exactly SIXTY, spread over the slugs, tagged `sixty`.
 */
async function load(dataSource: DataSource, owner: OwnerRef, count: number): Promise<void> {
  const user = randomUUID();
  await dataSource.query(
    `INSERT INTO dashboards (id, owner_kind, owner_id, slug, name, tags, chart, visibility, connection, current_version_id, created_by, created_at, updated_at)
     SELECT md5($1 || 'd' || i)::uuid, 'user', $1::uuid, 'd-' || lpad(i::text, 7, '0'), 'Dashboard ' || i,
            ARRAY['team-' || (i % 10)]
              || CASE WHEN i % 1000 = 500 THEN ARRAY['rare'] ELSE '{}'::text[] END
              || CASE WHEN i % ($3 / ${SIXTY}) = 3 AND i / ($3 / ${SIXTY}) < ${SIXTY} THEN ARRAY['sixty'] ELSE '{}'::text[] END,
            NULL, 'public', 'self', md5($1 || 'v' || i)::uuid, $2::uuid, now() - interval '1 day', now()
     FROM generate_series(0, $3 - 1) AS i`,
    [owner.id, user, count],
  );
  await dataSource.query(
    `INSERT INTO dashboard_versions (id, dashboard_id, seq, name, created_at, created_by, files, spec)
     SELECT md5($1 || 'v' || i)::uuid, md5($1 || 'd' || i)::uuid, 1, NULL, now() - interval '1 day', $2::uuid,
            jsonb_build_object('index.html', jsonb_build_object('sha256', repeat('a', 64), 'size', 5, 'contentType', 'text/html; charset=utf-8')), NULL
     FROM generate_series(0, $3 - 1) AS i`,
    [owner.id, user, count],
  );
}

interface Case {
  name: string;
  query(count: number): ListQuery;
}

const CASES: Case[] = [
  { name: 'first page', query: () => ({ limit: PAGE }) },
  { name: 'middle page (cursor)', query: (count) => ({ limit: PAGE, afterSlug: slugOf(Math.floor(count / 2)) }) },
  { name: 'rare tag (1 in 1,000)', query: () => ({ limit: PAGE, tag: 'rare' }) },
  { name: `tag of ${SIXTY} at both sizes`, query: () => ({ limit: PAGE, tag: 'sixty' }) },
];

async function timePage(store: PostgresDashboardStore, owner: OwnerRef, query: ListQuery): Promise<{ p50: number; p99: number; rows: number }> {
  return timeRead(async () => (await store.listWithCurrent(owner, query)).length);
}

/** The same page as list_dashboards over HTTP; `rows` is what the answer lists, read once outside the timed calls. */
async function timeOverHttp(server: SpawnedServer, token: string, query: ListQuery): Promise<{ p50: number; p99: number; rows: number }> {
  const args = pageArguments(query);
  const listed = listedCount(await listOverHttp(server, token, args));
  return { ...(await timeRead(async () => (await listOverHttp(server, token, args)).length)), rows: listed };
}

/** p50 and p99 of ITERATIONS calls of `read` (which answers its row count), after 20 to warm up. */
async function timeRead(read: () => Promise<number>): Promise<{ p50: number; p99: number; rows: number }> {
  const { p50, p99, last } = await timeCalls(read, ITERATIONS);
  return { p50, p99, rows: last };
}

/**
 * The rare tag's floor: the same walk of dashboard_tags' (owner, tag, slug) key, answering less and less of a
 * listing row, so the docs can show what a page of 51 rows costs against a page of 1 before any of dashpub's
 * own work (docs/decisions/0034-rare-tag-page.md). Each runs as the store runs its statements: named, straight
 * on the pg pool. `$1` owner, `$2` kind, `$3` tag, `$4` limit.
 */
const TAG_WALK = 'FROM dashboard_tags t JOIN dashboards d ON d.id = t.dashboard_id WHERE t.owner_id = $1::uuid AND d.owner_kind = $2 AND t.tag = $3 ORDER BY t.slug LIMIT $4';
const FLOOR: Array<{ name: string; text: string }> = [
  { name: 'the tag key alone (index-only scan)', text: 'SELECT t.slug FROM dashboard_tags t WHERE t.owner_id = $1::uuid AND $2::text IS NOT NULL AND t.tag = $3 ORDER BY t.slug LIMIT $4' },
  { name: '+ each dashboard\'s row, answering its slug', text: `SELECT d.slug ${TAG_WALK}` },
  {
    name: '+ the dashboard\'s listed columns',
    text: `SELECT d.slug, d.name, d.tags, d.chart, d.visibility, d.connection, d.current_version_id, d.created_at, d.updated_at ${TAG_WALK}`,
  },
];

async function timeFloor(pool: Pool, index: number, owner: OwnerRef): Promise<{ p50: number; p99: number; rows: number }> {
  const config = { name: `scale_floor_${index}`, text: FLOOR[index]!.text, values: [owner.id, owner.kind, 'rare', PAGE] };
  return timeRead(async () => (await pool.query(config)).rowCount ?? 0);
}

/**
 * The plan the page runs with in production: the statement prepared (as PostgresDashboardStore prepares it on
 * PostgreSQL) and executed five times first, after which PostgreSQL keeps a generic plan when it finds one
 * no worse than planning each call.
 */
async function plan(dataSource: DataSource, owner: OwnerRef, query: ListQuery): Promise<string> {
  const [sql, params] = listSql(owner, query, true);
  const runner = dataSource.createQueryRunner();
  try {
    await runner.query(`PREPARE scale_plan AS ${sql}`);
    // EXECUTE takes no bound parameters: the bench's own values (uuids, slugs, a tag, the limit) as literals.
    const execute = `EXECUTE scale_plan (${params.map((p) => `'${String(p).replace(/'/g, "''")}'`).join(', ')})`;
    for (let i = 0; i < 5; i++) await runner.query(execute);
    const rows: Array<{ 'QUERY PLAN': string }> = await runner.query(`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${execute}`);
    await runner.query('DEALLOCATE scale_plan');
    return rows.map((r) => r['QUERY PLAN']).join('\n');
  } finally {
    await runner.release();
  }
}

type Timed = { small: number[]; large: number[]; rows: number[] };

/** A table row: each round's p50 at 1k and 1M, their medians and the ratio. */
function row(name: string, r: Timed): string {
  const ratio = median(r.large) / median(r.small);
  return `| ${name} | ${r.rows[0]} / ${r.rows[1]} | ${r.small.map((s, i) => `${fmt(s, 2)} / ${fmt(r.large[i]!, 2)}`).join(' | ')} | ${fmt(median(r.small), 2)} | **${fmt(median(r.large), 2)}** | **${fmt(ratio, 2)}×** |`;
}

async function main(): Promise<void> {
  // Real users, so the same owners can be listed through the MCP endpoint with their own tokens.
  await withOwners('dashpub_test_bench_scale', ['owner-1k', 'owner-1m'], async ({ dataSource, owners: [smallUser, largeUser], serve }) => {
    const small: OwnerRef = { kind: 'user', id: smallUser!.id };
    const large: OwnerRef = { kind: 'user', id: largeUser!.id };
    let started = performance.now();
    await load(dataSource, small, SMALL);
    await load(dataSource, large, LARGE);
    await dataSource.query('VACUUM ANALYZE dashboards');
    await dataSource.query('VACUUM ANALYZE dashboard_versions');
    await dataSource.query('VACUUM ANALYZE dashboard_tags');
    const loadSeconds = (performance.now() - started) / 1000;
    process.stdout.write(`loaded ${SMALL} + ${LARGE} dashboards in ${fmt(loadSeconds)} s\n`);
    // Prepared, as the composition root builds it on PostgreSQL: the bench times the statement production runs.
    const store = new PostgresDashboardStore(dataSource, { preparedStatements: true });

    const results: Record<string, Timed> = {};
    for (const c of CASES) results[c.name] = { small: [], large: [], rows: [0, 0] };
    for (let round = 0; round < ROUNDS; round++) {
      const line: string[] = [];
      for (const c of CASES) {
        const r = results[c.name]!;
        const s = await timePage(store, small, c.query(SMALL));
        const l = await timePage(store, large, c.query(LARGE));
        r.small.push(s.p50);
        r.large.push(l.p50);
        r.rows = [s.rows, l.rows];
        line.push(`${c.name} ${fmt(s.p50, 2)} / ${fmt(l.p50, 2)} ms`);
      }
      process.stdout.write(`round ${round + 1}/${ROUNDS}: ${line.join('; ')}\n`);
    }
    const pool = (dataSource.driver as unknown as { master: Pool }).master;
    const floor = FLOOR.map(() => ({ small: [] as number[], large: [] as number[], rows: [0, 0] }));
    for (let round = 0; round < ROUNDS; round++) {
      for (const [i, r] of floor.entries()) {
        const s = await timeFloor(pool, i, small);
        const l = await timeFloor(pool, i, large);
        r.small.push(s.p50);
        r.large.push(l.p50);
        r.rows = [s.rows, l.rows];
      }
      process.stdout.write(`floor round ${round + 1}/${ROUNDS}: ${floor.map((r, i) => `${FLOOR[i]!.name} ${fmt(r.small[round]!, 2)} / ${fmt(r.large[round]!, 2)} ms`).join('; ')}\n`);
    }
    // The same pages through the MCP endpoint (bench/scale-endpoint.ts), rounds interleaving owners and servers.
    const endpoint = await serve();
    const servers: EndpointServer[] = ['uncached', 'cached'];
    const overHttp: Record<string, Timed> = {};
    for (let round = 0; round < ROUNDS; round++) {
      const line: string[] = [];
      for (const c of CASES) {
        for (const server of servers) {
          const r = (overHttp[`${c.name} ${server}`] ??= { small: [], large: [], rows: [0, 0] });
          const serving = endpoint.servers[server];
          const s = await timeOverHttp(serving, smallUser!.token, c.query(SMALL));
          const l = await timeOverHttp(serving, largeUser!.token, c.query(LARGE));
          r.small.push(s.p50);
          r.large.push(l.p50);
          r.rows = [s.rows, l.rows];
          line.push(`${c.name} ${server} ${fmt(s.p50, 2)} / ${fmt(l.p50, 2)} ms`);
        }
      }
      process.stdout.write(`endpoint round ${round + 1}/${ROUNDS}: ${line.join('; ')}\n`);
    }
    const plans: string[] = [];
    for (const c of CASES) plans.push(`-- ${c.name}, ${LARGE.toLocaleString('en')} dashboards\n${await plan(dataSource, large, c.query(LARGE))}`);

    const lines = [
      '## Scale',
      '',
      `Machine: ${machineLine()}. \`npm run bench:scale\` (bench/scale.ts): one owner with ${SMALL.toLocaleString('en')} dashboards and one with`,
      `${LARGE.toLocaleString('en')} (bulk-loaded in SQL with a version and a file each; loaded in ${fmt(loadSeconds, 0)} s) in one database; each page read`,
      `${ITERATIONS} times at c1 through PostgresDashboardStore.listWithCurrent (the statement behind a list_dashboards page, limit ${PAGE}), rounds`,
      'interleaving the two owners. Milliseconds, p50 of each round:',
      '',
      `| page | rows at 1k / 1M | ${Array.from({ length: ROUNDS }, (_, i) => `round ${i + 1} 1k / 1M`).join(' | ')} | median 1k | median 1M | 1M ÷ 1k |`,
      `|---|---|${'---|'.repeat(ROUNDS)}---|---|---|`,
      ...CASES.map((c) => row(c.name, results[c.name]!)),
      '',
      `The rare tag is held by 1 dashboard of the 1k owner and by ${(LARGE / 1000).toLocaleString('en')} of the 1M owner, so that row compares a page of 1 with a`,
      `full page; against the 1k owner's first page (also ${PAGE} rows) the 1M rare-tag page takes ` +
        `**${fmt(median(results[CASES[2]!.name]!.large) / median(results[CASES[0]!.name]!.small), 2)}×** (the tag walk adds one index lookup per row).`,
      `The tag of ${SIXTY} is the same full page at both sizes (1 in ${Math.round(LARGE / SIXTY).toLocaleString('en')} of the 1M owner's dashboards): the tag filter's cost`,
      'with the rows it returns held equal.',
      '',
      'The rare tag\'s floor: the same walk of the tag key for the same two owners (1 row at 1k, 51 at 1M), answering less and less of',
      'a listing row (named statements on the pool, as the store runs them; p50 ms of each round):',
      '',
      `| statement | rows at 1k / 1M | ${Array.from({ length: ROUNDS }, (_, i) => `round ${i + 1} 1k / 1M`).join(' | ')} | median 1k | median 1M | 1M ÷ 1k |`,
      `|---|---|${'---|'.repeat(ROUNDS)}---|---|---|`,
      ...floor.map((r, i) => row(FLOOR[i]!.name, r)),
      row('the listing statement (the rare-tag row above)', results[CASES[2]!.name]!),
      '',
      'The same pages as an AI client reads them: `list_dashboards` over HTTP to `dashpub serve` with each owner\'s bearer token,',
      'keep-alive, c1 (how issue 10 first measured them). `uncached` runs with `LIST_CACHE_MB=0`, so every answer is built: what a',
      'page costs right after the owner changed something. `cached` is the default set-up, where a repeated page is answered',
      `from the list cache. list_dashboards pages by 50, so a full page lists 50 (the store reads ${PAGE}). p50 ms of each round:`,
      '',
      `| page | server | listed at 1k / 1M | ${Array.from({ length: ROUNDS }, (_, i) => `round ${i + 1} 1k / 1M`).join(' | ')} | median 1k | median 1M | 1M ÷ 1k |`,
      `|---|---|---|${'---|'.repeat(ROUNDS)}---|---|---|`,
      ...CASES.flatMap((c) => servers.map((server) => row(`${c.name} | ${server}`, overHttp[`${c.name} ${server}`]!))),
      '',
      'Targets: at 1M every page ≤ 1.5× its time at 1k and ≤ 5 ms p50. Plans at 1M (EXPLAIN ANALYZE of the prepared statement after five executions, one run):',
      '',
      '```',
      ...plans,
      '```',
      '',
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
    const ratio = (r: Timed) => `${fmt(median(r.large) / median(r.small), 2)}×`;
    const http = (c: (typeof CASES)[number], server: EndpointServer) => ratio(overHttp[`${c.name} ${server}`]!);
    const [first, middle, rare, sixty] = [CASES[0]!, CASES[1]!, CASES[2]!, CASES[3]!];
    updateLatestResult(
      'scale',
      `store: **${ratio(results[first.name]!)}**, **${ratio(results[middle.name]!)}**, **${ratio(results[sixty.name]!)}** (${[first, middle, sixty].map((c) => fmt(median(results[c.name]!.large), 2)).join(', ')} ms at 1M); ` +
        `\`list_dashboards\` over HTTP: ${[first, middle, sixty].map((c) => http(c, 'uncached')).join(', ')} built, ${[first, middle, sixty].map((c) => http(c, 'cached')).join(', ')} from the cache`,
    );
    updateLatestResult(
      'scale-rare-tag',
      `over HTTP, repeated: **${http(rare, 'cached')}** (${fmt(median(overHttp[`${rare.name} cached`]!.large), 2)} ms at 1M); built afresh ${http(rare, 'uncached')}; store ${ratio(results[rare.name]!)}, ` +
        `and ${fmt(median(results[rare.name]!.large) / median(results[first.name]!.small), 2)}× the 1k owner's first page`,
    );
  });
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
