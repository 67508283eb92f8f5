/**
 * A publish as the store sends it, on one connection of the bench's own, with what it cost the connection's
 * backend: for the connections bench (new against warm connections) and the allocator bench (PostgreSQL's
 * malloc settings). PostgreSQL must run on this host: a backend's CPU and page faults are read from /proc.
 */
import { createHash, randomUUID } from 'node:crypto';
import pg from 'pg';
import { publishReadSql, publishWriteSql } from '../adapters/postgres/dashboard-sql.js';
import { statementName } from '../adapters/postgres/named-statements.js';
import type { PublishWrite } from '../application/ports/dashboard-store.js';
import type { OwnerRef } from '../domain/scope.js';
import { page, procMemoryMiB, procStatFields, schedstat } from './support.js';

/** CPU time (ms) the backend `pid` has run for. */
export function backendCpuMs(pid: number): number {
  const counted = schedstat(pid);
  if (!counted) throw new Error(`no /proc schedstat for backend ${pid}: this bench needs PostgreSQL on this Linux host`);
  return counted.runNs / 1e6;
}

export interface Connection {
  client: pg.Client;
  pid: number;
}

export async function connect(url: string): Promise<{ connection: Connection; wallMs: number; backendMs: number }> {
  const startedAt = performance.now();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
  const wallMs = performance.now() - startedAt;
  return { connection: { client, pid: rows[0]!.pid }, wallMs, backendMs: backendCpuMs(rows[0]!.pid) };
}

/** One publish of `bytes` to a new slug of `owner`, as the store sends it: the read, then the write. */
export async function publish(connection: Connection, owner: OwnerRef, bytes: number): Promise<{ wallMs: number; backendMs: number }> {
  const slug = `p-${randomUUID()}`;
  const body = Buffer.from(page(bytes, slug));
  const sha256 = createHash('sha256').update(body).digest('hex');
  const now = new Date();
  const versionId = randomUUID();
  const write: PublishWrite = {
    isNew: true,
    dashboard: { id: randomUUID(), owner, slug, name: slug, tags: [], chart: null, visibility: 'public', connection: 'self', currentVersionId: versionId, createdBy: owner.id, createdAt: now, updatedAt: now },
    version: { id: versionId, dashboardId: '', name: null, createdAt: now, createdBy: owner.id, files: { 'index.html': { sha256, size: body.length, contentType: 'text/html; charset=utf-8' } }, spec: null },
  };
  const cpuBefore = backendCpuMs(connection.pid);
  const startedAt = performance.now();
  for (const [text, values] of [publishReadSql(owner, slug), publishWriteSql(owner, slug, null, write, [{ sha256, bytes: body }], 20)]) {
    await connection.client.query({ name: statementName(text), text, values });
  }
  return { wallMs: performance.now() - startedAt, backendMs: backendCpuMs(connection.pid) - cpuBefore };
}

/** Minor page faults of the backend `pid` so far: pages it touched for the first time since they were mapped. */
export function backendPageFaults(pid: number): number {
  return Number(procStatFields(pid)[7]);
}

/** Resident memory of the backend `pid`, in MiB. */
export function backendRssMiB(pid: number): number {
  return procMemoryMiB(pid, 'VmRSS');
}
