/**
 * PostgreSQL's allocator and a large publish. glibc gives a PostgreSQL backend the big buffers of a 5 MiB
 * publish (the Bind message, the bytea, LZ4's output) from fresh memory and hands them back to the system
 * after each statement, so every publish faults a few thousand new pages in and has the kernel zero them.
 * glibc's thresholds, set in the server's environment, keep those pages instead. This bench puts numbers on
 * it. It starts two throwaway PostgreSQL servers from the same initdb defaults, durable as a real one. One is
 * stock; the other is started with TUNED in its environment. The bench migrates a database on each and runs
 * the store's publish of a 5 MiB page (bench/store-publish.ts), PUBLISHES times a round on one warm
 * connection, rounds alternating the servers. Written to the "PostgreSQL's allocator" section of
 * docs/benchmarks.md; what it means for operators is in docs/operations.md, "Running in production".
 *
 *   npm run bench:pg-allocator -- [--rounds 5] [--publishes 10]
 *
 * Needs PostgreSQL's server binaries (initdb, pg_ctl) on this host, as the fault suite does.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { openDataSource } from '../adapters/postgres/data-source.js';
import type { OwnerRef } from '../domain/scope.js';
import { startThrowawayPostgres, type ThrowawayPostgres } from '../test/support/throwaway-services.js';
import { backendPageFaults, backendRssMiB, connect, publish, type Connection } from './store-publish.js';
import { fmt, machineLine, median, option, updateLatestResult } from './support.js';

const ROUNDS = Number(option('rounds', '5'));
const PUBLISHES = Number(option('publishes', '10'));
const BYTES = 5 * 1024 * 1024;
/**
 * Allocations up to 32 MiB come from the heap rather than a mapping of their own, and the heap is handed back
 * only when 64 MiB or more at its top is free: room for a 5 MiB publish's buffers several times over.
 */
const TUNED = { MALLOC_MMAP_THRESHOLD_: String(32 * 2 ** 20), MALLOC_TRIM_THRESHOLD_: String(64 * 2 ** 20) };
const DATABASE = 'dashpub_test_allocator';

interface Server {
  name: 'stock' | 'tuned';
  postgres: ThrowawayPostgres;
  connection: Connection;
  samples: { backendMs: number[]; wallMs: number[]; faults: number[] };
}

async function startServer(name: Server['name']): Promise<Server> {
  const postgres = await startThrowawayPostgres({ durable: true, ...(name === 'tuned' ? { env: TUNED } : {}) });
  try {
    const admin = new pg.Client({ connectionString: postgres.url });
    await admin.connect();
    try {
      await admin.query(`CREATE DATABASE ${DATABASE}`);
    } finally {
      await admin.end();
    }
    const url = postgres.url.replace(/\/postgres$/, `/${DATABASE}`);
    // The schema as a server migrates it: the files table's LZ4 column and dashpub_publish.
    await (await openDataSource(url, { poolSize: 1 })).destroy();
    const { connection } = await connect(url);
    return { name, postgres, connection, samples: { backendMs: [], wallMs: [], faults: [] } };
  } catch (err) {
    await postgres.destroy();
    throw err;
  }
}

async function main(): Promise<void> {
  const owner: OwnerRef = { kind: 'user', id: randomUUID() };
  const servers: Server[] = [];
  try {
    for (const name of ['stock', 'tuned'] as const) servers.push(await startServer(name));
    // Warm: each connection's statements parsed and planned, and its backend past its first large buffers.
    for (const server of servers) for (let i = 0; i < 5; i++) await publish(server.connection, owner, BYTES);
    for (let round = 0; round < ROUNDS; round++) {
      for (const server of round % 2 === 0 ? servers : [...servers].reverse()) {
        const { pid } = server.connection;
        const faultsBefore = backendPageFaults(pid);
        let backendMs = 0;
        let wallMs = 0;
        for (let i = 0; i < PUBLISHES; i++) {
          const sample = await publish(server.connection, owner, BYTES);
          backendMs += sample.backendMs;
          wallMs += sample.wallMs;
        }
        server.samples.backendMs.push(backendMs / PUBLISHES);
        server.samples.wallMs.push(wallMs / PUBLISHES);
        server.samples.faults.push((backendPageFaults(pid) - faultsBefore) / PUBLISHES);
      }
      process.stdout.write(
        `round ${round + 1}/${ROUNDS}: ${servers.map((s) => `${s.name} backend ${fmt(s.samples.backendMs.at(-1)!)} ms, ${fmt(s.samples.faults.at(-1)!, 0)} page faults per publish`).join('; ')}\n`,
      );
    }
    report(servers.map((s) => ({ ...s, rssMiB: backendRssMiB(s.connection.pid) })));
  } finally {
    for (const server of servers) {
      await server.connection.client.end();
      await server.postgres.destroy();
    }
  }
}

function report(servers: Array<Server & { rssMiB: number }>): void {
  const row = (s: Server & { rssMiB: number }) =>
    `| ${s.name} | ${s.samples.backendMs.map((ms, i) => `${fmt(ms)} / ${fmt(s.samples.faults[i]!, 0)}`).join(' | ')} | **${fmt(median(s.samples.backendMs))}** | ${fmt(median(s.samples.faults), 0)} | ${fmt(median(s.samples.wallMs))} | ${fmt(s.rssMiB)} |`;
  const [stock, tuned] = [servers[0]!, servers[1]!];
  const lines = [
    "## PostgreSQL's allocator",
    '',
    `Machine: ${machineLine()}. \`npm run bench:pg-allocator\` (bench/pg-allocator.ts): two throwaway PostgreSQL servers from the same`,
    'initdb defaults (durable), one stock and one started with',
    `\`${Object.entries(TUNED).map(([k, v]) => `${k}=${v}`).join(' ')}\` in its environment; on each, the store's publish of a 5 MiB`,
    `page (the slug's read, then \`dashpub_publish\`) ${PUBLISHES} times a round on one warm connection, ${ROUNDS} rounds alternating the servers.`,
    "Per publish, each round: the backend's CPU in ms / its minor page faults; then medians, the wall time at the client, and the",
    "backend's resident memory after the last round:",
    '',
    `| server | ${Array.from({ length: ROUNDS }, (_, i) => `round ${i + 1}`).join(' | ')} | CPU ms | page faults | wall ms | RSS MiB |`,
    `|---|${'---|'.repeat(ROUNDS)}---|---|---|---|`,
    ...servers.map(row),
    '',
    `The tuned server's backend spends **${fmt(median(tuned.samples.backendMs) / median(stock.samples.backendMs), 2)}×** the stock one's CPU per publish.`,
    '',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  updateLatestResult(
    'pg-allocator',
    `**${fmt(median(tuned.samples.backendMs) / median(stock.samples.backendMs), 2)}×** the backend CPU (${fmt(median(tuned.samples.backendMs))} against ${fmt(median(stock.samples.backendMs))} ms), ` +
      `${fmt(median(tuned.samples.faults), 0)} page faults against ${fmt(median(stock.samples.faults), 0)}, ${fmt(tuned.rssMiB - stock.rssMiB, 0)} MiB more resident per backend`,
  );
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
