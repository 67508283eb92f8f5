/**
 * Connections benchmark: what a publish's two statements (the slug's read, then `dashpub_publish` with the
 * body) cost on a new PostgreSQL connection against one that has run them before, for a 10 KB and a 5 MiB
 * body. The statements are the store's own (publishReadSql, publishWriteSql), sent as named statements as
 * NamedStatements sends them. Each round, per size and in alternating order, a new connection runs PUBLISHES
 * publishes and a warm one (PUBLISHES × 2 before the first round) runs as many; the CPU of the connection's
 * backend (/proc/<pid>/schedstat) and the wall time are taken per publish, and the new connection's start-up
 * on its own. Written to the "Connections" section of docs/benchmarks.md; why it matters in
 * adapters/postgres/data-source.ts (POOL_IDLE_MS).
 *
 *   npm run bench:connections -- [--rounds 5] [--publishes 7]
 *
 * PostgreSQL on this host, where the tests find it (DATABASE_URL, default postgres://postgres@127.0.0.1:5432/test):
 * a backend's CPU is read from /proc.
 */
import { randomUUID } from 'node:crypto';
import type { OwnerRef } from '../domain/scope.js';
import { openTestDatabase } from '../test/support/database.js';
import { connect, publish, type Connection } from './store-publish.js';
import { fmt, machineLine, median, option, updateLatestResult } from './support.js';

const ROUNDS = Number(option('rounds', '5'));
const PUBLISHES = Number(option('publishes', '7'));
const SIZES = [
  { name: '10 KB', bytes: 10 * 1024 },
  { name: '5 MiB', bytes: 5 * 1024 * 1024 },
];

/** Per publish index: the samples of every round. */
type Series = Array<{ wallMs: number[]; backendMs: number[] }>;
const series = (): Series => Array.from({ length: PUBLISHES }, () => ({ wallMs: [], backendMs: [] }));

async function main(): Promise<void> {
  const database = await openTestDatabase();
  const owner: OwnerRef = { kind: 'user', id: randomUUID() };
  const warm = new Map<string, Connection>();
  const results = new Map(SIZES.map((s) => [s.name, { fresh: series(), warm: series() }]));
  const startups: Array<{ wallMs: number; backendMs: number }> = [];
  try {
    for (const size of SIZES) {
      const { connection } = await connect(database.url);
      for (let i = 0; i < PUBLISHES * 2; i++) await publish(connection, owner, size.bytes);
      warm.set(size.name, connection);
    }
    for (let round = 0; round < ROUNDS; round++) {
      for (const size of SIZES) {
        const result = results.get(size.name)!;
        for (const kind of round % 2 === 0 ? (['fresh', 'warm'] as const) : (['warm', 'fresh'] as const)) {
          let connection = warm.get(size.name)!;
          if (kind === 'fresh') {
            const started = await connect(database.url);
            startups.push({ wallMs: started.wallMs, backendMs: started.backendMs });
            connection = started.connection;
          }
          for (let i = 0; i < PUBLISHES; i++) {
            const sample = await publish(connection, owner, size.bytes);
            result[kind][i]!.wallMs.push(sample.wallMs);
            result[kind][i]!.backendMs.push(sample.backendMs);
          }
          if (kind === 'fresh') await connection.client.end();
        }
      }
      process.stdout.write(
        `round ${round + 1}/${ROUNDS}: ${SIZES.map((s) => {
          const r = results.get(s.name)!;
          const first = (k: 'fresh' | 'warm') => fmt(r[k][0]!.backendMs.at(-1)!, 2);
          return `${s.name} first publish backend CPU new ${first('fresh')} / warm ${first('warm')} ms`;
        }).join('; ')}\n`,
      );
    }
  } finally {
    for (const connection of warm.values()) await connection.client.end();
    await database.close();
  }
  report(results, startups);
}

function report(results: Map<string, { fresh: Series; warm: Series }>, startups: Array<{ wallMs: number; backendMs: number }>): void {
  const cell = (s: { wallMs: number[]; backendMs: number[] }) => `${fmt(median(s.backendMs), 2)} / ${fmt(median(s.wallMs), 2)}`;
  const lines = [
    '## Connections',
    '',
    `Machine: ${machineLine()}. \`npm run bench:connections\` (bench/connections.ts): a publish's two statements (the slug's read, then`,
    '`dashpub_publish` with the body), named as NamedStatements names them, on a new connection against a warm one (one that ran',
    `${PUBLISHES * 2} publishes first), ${PUBLISHES} publishes each, ${ROUNDS} rounds in alternating order. Median over the rounds of each publish's CPU`,
    "in the connection's backend / wall time at the client, in ms:",
    '',
    `| body | connection | ${Array.from({ length: PUBLISHES }, (_, i) => `publish ${i + 1}`).join(' | ')} |`,
    `|---|---|${'---|'.repeat(PUBLISHES)}`,
    ...[...results].flatMap(([name, r]) => [
      `| ${name} | new | ${r.fresh.map(cell).join(' | ')} |`,
      `| ${name} | warm | ${r.warm.map(cell).join(' | ')} |`,
    ]),
    '',
    `Opening the connection itself (connect and a first statement): median ${fmt(median(startups.map((s) => s.wallMs)), 2)} ms at the client, ` +
      `${fmt(median(startups.map((s) => s.backendMs)), 2)} ms of the new backend's CPU, over ${startups.length} connections.`,
    '',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  const first = (series: Series) => median(series[0]!.backendMs);
  const later = (series: Series) => series.slice(1).map((s) => median(s.backendMs));
  const sizes = [...results].map(([name, r]) => {
    const next = later(r.fresh);
    return `${name}: ${fmt(first(r.fresh), 1)} ms of backend CPU for the first, ${fmt(Math.min(...next), 1)}–${fmt(Math.max(...next), 1)} ms for the next, against ${fmt(median(r.warm.map((s) => median(s.backendMs))), 1)} ms warm`;
  });
  updateLatestResult('connections', `${sizes.join('; ')}; opening the connection ${fmt(median(startups.map((s) => s.wallMs)), 1)} ms`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
