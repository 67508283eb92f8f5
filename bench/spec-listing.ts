/**
 * Spec listing benchmark: what a page of spec dashboards costs against the same page of body dashboards. One
 * owner has 50 body dashboards, another 50 refreshable spec dashboards whose specs each carry ROWS rows of
 * inline data (bulk-loaded in SQL into a throwaway `dashpub_test_bench_specs_*` database). Times, at c1 and
 * rounds interleaving the owners: the store's listing statement (PostgresDashboardStore.listWithCurrent,
 * prepared as production runs it), the web app's dashboards page read filtered to refreshable dashboards
 * (TypeormDashboardCatalog.page), and `list_dashboards` over HTTP to `dashpub serve` with the list cache off
 * (`LIST_CACHE_MB=0`: every answer built, what a page costs right after a change), and `list_dashboard_versions`
 * and `get_dashboard` of a dashboard with SNAPSHOTS snapshots of the same content. A listing shows whether a
 * dashboard refreshes and nothing else of its spec (docs/decisions/0032-listings-read-no-spec.md), so the two
 * pages should cost the same; each round's p50 goes to the "Spec listing" section of docs/benchmarks.md.
 *
 *   npm run bench:spec-listing -- [--rows 1000] [--rounds 5] [--iterations 200]
 *
 * PostgreSQL is where the tests find it (DATABASE_URL, default postgres://postgres@127.0.0.1:5432/test).
 */
import type { DataSource } from 'typeorm';
import { TypeormDashboardCatalog } from '../adapters/postgres/typeorm-dashboard-catalog.js';
import { PostgresDashboardStore } from '../adapters/postgres/postgres-dashboard-store.js';
import type { OwnerRef } from '../domain/scope.js';
import { callOverHttp, listedCount, listOverHttp, withOwners } from './scale-endpoint.js';
import { fmt, machineLine, median, option, timeCalls, updateLatestResult } from './support.js';

const DASHBOARDS = 50;
/** Snapshots of each owner's first dashboard, which list_dashboard_versions lists. */
const SNAPSHOTS = 20;
const ROWS = Number(option('rows', '1000'));
const ROUNDS = Number(option('rounds', '5'));
const ITERATIONS = Number(option('iterations', '200'));

/**
 * `DASHBOARDS` dashboards of one owner, each with one version; with `rows` > 0 the version is a refreshable spec
 * (one query, one table panel) carrying `rows` rows of inline data, else a body page.
 */
async function load(dataSource: DataSource, owner: OwnerRef, rows: number): Promise<void> {
  await dataSource.query(
    `INSERT INTO dashboards (id, owner_kind, owner_id, slug, name, tags, chart, visibility, connection, current_version_id, created_by, created_at, updated_at)
     SELECT md5($1 || 'd' || i)::uuid, 'user', $1::uuid, 'd-' || lpad(i::text, 3, '0'), 'Dashboard ' || i, ARRAY['bench'],
            NULL, 'public', 'self', md5($1 || 'v' || i)::uuid, $1::uuid, now(), now()
     FROM generate_series(0, $2 - 1) AS i`,
    [owner.id, DASHBOARDS],
  );
  await dataSource.query(
    `INSERT INTO dashboard_versions (id, dashboard_id, seq, name, created_at, created_by, files, spec)
     SELECT md5($1 || 'v' || i)::uuid, md5($1 || 'd' || i)::uuid, 1, NULL, now(), $1::uuid,
            jsonb_build_object('index.html', jsonb_build_object('sha256', repeat('a', 64), 'size', 5, 'contentType', 'text/html; charset=utf-8')),
            CASE WHEN $3::int > 0 THEN jsonb_build_object(
              'title', 'Dashboard ' || i,
              'queries', jsonb_build_object('latest', jsonb_build_object('sql', 'SELECT day, value FROM metrics ORDER BY day DESC LIMIT 30')),
              'data', jsonb_build_object('history', (
                SELECT jsonb_agg(jsonb_build_object('day', (date '2024-01-01' + g)::text, 'value', (g * 7919 + i) % 100000, 'label', md5((g + i)::text)))
                FROM generate_series(1, $3::int) AS g)),
              'panels', jsonb_build_array(jsonb_build_object('id', 'history', 'type', 'table', 'query', 'history')))
            END
     FROM generate_series(0, $2 - 1) AS i`,
    [owner.id, DASHBOARDS, rows],
  );
  // The first dashboard's earlier versions: SNAPSHOTS more of the same content, for list_dashboard_versions.
  await dataSource.query(
    `INSERT INTO dashboard_versions (id, dashboard_id, seq, name, created_at, created_by, files, spec)
     SELECT gen_random_uuid(), v.dashboard_id, 1 + s, NULL, now() - s * interval '1 minute', v.created_by, v.files, v.spec
     FROM dashboard_versions v CROSS JOIN generate_series(1, $2) AS s
     WHERE v.id = md5($1 || 'v' || 0)::uuid`,
    [owner.id, SNAPSHOTS],
  );
}

/** p50 of ITERATIONS calls of `read`, after 20 to warm up. */
async function timeRead(read: () => Promise<unknown>): Promise<number> {
  return (await timeCalls(read, ITERATIONS)).p50;
}

type Pair = { body: number[]; spec: number[] };

function row(name: string, r: Pair): string {
  return `| ${name} | ${r.body.map((b, i) => `${fmt(b, 2)} / ${fmt(r.spec[i]!, 2)}`).join(' | ')} | ${fmt(median(r.body), 2)} | **${fmt(median(r.spec), 2)}** | **${fmt(median(r.spec) / median(r.body), 2)}×** |`;
}

async function main(): Promise<void> {
  await withOwners('dashpub_test_bench_specs', ['body-owner', 'spec-owner'], async ({ dataSource, owners: [bodyUser, specUser], serve }) => {
    const owners = { body: { kind: 'user', id: bodyUser!.id } as OwnerRef, spec: { kind: 'user', id: specUser!.id } as OwnerRef };
    await load(dataSource, owners.body, 0);
    await load(dataSource, owners.spec, ROWS);
    await dataSource.query('VACUUM ANALYZE dashboards');
    await dataSource.query('VACUUM ANALYZE dashboard_versions');
    const [size] = await dataSource.query(`SELECT avg(pg_column_size(spec))::int AS stored, avg(octet_length(spec::text))::int AS text FROM dashboard_versions WHERE spec IS NOT NULL`);
    const store = new PostgresDashboardStore(dataSource, { preparedStatements: true });
    const server = (await serve(['uncached'])).servers.uncached;
    const tokens = { body: bodyUser!.token, spec: specUser!.token };
    for (const kind of ['body', 'spec'] as const) {
      const listed = listedCount(await listOverHttp(server, tokens[kind], {}));
      if (listed !== DASHBOARDS) throw new Error(`the ${kind} owner lists ${listed} dashboards`);
    }

    const catalog = new TypeormDashboardCatalog(dataSource);
    // The body owner's page with the kind filter would be empty; unfiltered it reads the same rows.
    const kinds = { body: undefined, spec: 'refreshable' } as const;
    const viewsFromDay = new Date(Date.now() - 29 * 86_400_000).toISOString().slice(0, 10);
    const statement: Pair = { body: [], spec: [] };
    const page: Pair = { body: [], spec: [] };
    const overHttp: Pair = { body: [], spec: [] };
    const versionsOverHttp: Pair = { body: [], spec: [] };
    const getOverHttp: Pair = { body: [], spec: [] };
    for (let round = 0; round < ROUNDS; round++) {
      for (const kind of ['body', 'spec'] as const) {
        statement[kind].push(await timeRead(() => store.listWithCurrent(owners[kind], { limit: DASHBOARDS + 1 })));
        page[kind].push(await timeRead(() => catalog.page(owners[kind], { limit: DASHBOARDS + 1, kind: kinds[kind], viewsFromDay })));
        overHttp[kind].push(await timeRead(() => listOverHttp(server, tokens[kind], {})));
        versionsOverHttp[kind].push(await timeRead(() => callOverHttp(server, tokens[kind], 'list_dashboard_versions', { slug: 'd-000' })));
        getOverHttp[kind].push(await timeRead(() => callOverHttp(server, tokens[kind], 'get_dashboard', { slug: 'd-000' })));
      }
      process.stdout.write(
        `round ${round + 1}/${ROUNDS}: statement ${fmt(statement.body[round]!, 2)} / ${fmt(statement.spec[round]!, 2)} ms; ` +
          `dashboards page ${fmt(page.body[round]!, 2)} / ${fmt(page.spec[round]!, 2)} ms; ` +
          `list_dashboards ${fmt(overHttp.body[round]!, 2)} / ${fmt(overHttp.spec[round]!, 2)} ms; ` +
          `list_dashboard_versions ${fmt(versionsOverHttp.body[round]!, 2)} / ${fmt(versionsOverHttp.spec[round]!, 2)} ms; ` +
          `get_dashboard ${fmt(getOverHttp.body[round]!, 2)} / ${fmt(getOverHttp.spec[round]!, 2)} ms (body / spec)\n`,
      );
    }

    const lines = [
      '## Spec listing',
      '',
      `Machine: ${machineLine()}. \`npm run bench:spec-listing\` (bench/spec-listing.ts): one owner with ${DASHBOARDS} body dashboards, one with ${DASHBOARDS}`,
      `refreshable spec dashboards whose specs each carry ${ROWS.toLocaleString('en')} rows of inline data (${fmt(size.text / 1024, 0)} KB of JSON each, ${fmt(size.stored / 1024, 0)} KB`,
      `stored). Each page read ${ITERATIONS} times at c1, rounds interleaving the owners: the store's listing statement (limit ${DASHBOARDS + 1}), the web app's`,
      'dashboards page read (TypeormDashboardCatalog; the spec owner\'s filtered to refreshable dashboards, the body owner\'s unfiltered, the same',
      'rows), `list_dashboards` over HTTP with the list cache off (`LIST_CACHE_MB=0`, every answer built), and `list_dashboard_versions` of',
      `each owner's first dashboard, which has ${SNAPSHOTS} snapshots of the same content, and \`get_dashboard\` of it. p50 ms of each round, body / spec:`,
      '',
      `| read | ${Array.from({ length: ROUNDS }, (_, i) => `round ${i + 1}`).join(' | ')} | median body | median spec | spec ÷ body |`,
      `|---|${'---|'.repeat(ROUNDS)}---|---|---|`,
      row('listing statement', statement),
      row('dashboards page read', page),
      row('list_dashboards, built', overHttp),
      row(`list_dashboard_versions, ${SNAPSHOTS} snapshots`, versionsOverHttp),
      row('get_dashboard', getOverHttp),
      '',
      'A listing shows whether a dashboard refreshes and nothing else of its spec ([0032](decisions/0032-listings-read-no-spec.md)),',
      'so the spec page should cost what the body page costs, whatever its specs carry.',
      '',
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
    const ratio = (r: Pair) => `${fmt(median(r.spec) / median(r.body), 2)}×`;
    updateLatestResult(
      'spec-listing',
      `listing statement **${ratio(statement)}**, web app's page ${ratio(page)}, \`list_dashboards\` built ${ratio(overHttp)}, \`list_dashboard_versions\` ${ratio(versionsOverHttp)}, \`get_dashboard\` ${ratio(getOverHttp)}`,
    );
  });
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
