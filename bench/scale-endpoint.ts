/**
 * Dashboards read as a user's AI client reads them, for the scale and spec-listing benches: tool calls over HTTP
 * to `dashpub serve` (real bearer tokens, keep-alive, c1), the way issue 10 first measured list pages. Up to two
 * servers on the bench's database: one with the list cache off (`LIST_CACHE_MB=0`: every answer built, what a
 * page costs right after a change) and one as operators run it (a repeated page answered from the cache).
 * `withOwners` makes the bench's database and its owners, and closes everything after.
 */
import http from 'node:http';
import type { DataSource } from 'typeorm';
import { openDataSource } from '../adapters/postgres/data-source.js';
import { AccountStore } from '../application/ports/account-store.js';
import { encodeCursor } from '../application/dashboards/list-dashboards.js';
import { buildContainer } from '../shells/container.js';
import { loadSettings } from '../shells/config.js';
import { createTestDatabase } from '../test/support/database.js';
import { spawnServer, type SpawnedServer } from '../test/support/server.js';
import { mintAccessToken } from '../test/support/tokens.js';
import { postMcp } from './support.js';

export type EndpointServer = 'uncached' | 'cached';

/** One kept-alive connection for every timed call (c1). */
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

export interface Endpoint {
  /** The servers `startEndpoint` was asked for (only those). */
  servers: Record<EndpointServer, SpawnedServer>;
  close(): Promise<void>;
}

export interface OwnersBench {
  databaseUrl: string;
  /** A pool of two on the bench's database, for its bulk loads and the store's statements. */
  dataSource: DataSource;
  /** One per handle asked for, in order: the user's id (which owns the bulk-loaded dashboards) and a token. */
  owners: Array<{ id: string; token: string }>;
  /** `dashpub serve` on the bench's database (the servers asked for); closed with the rest. */
  serve(which?: EndpointServer[]): Promise<Endpoint>;
}

/**
 * A throwaway `<prefix>_*` database with real users for `handles`, handed to `work`; the servers it started, the
 * keep-alive agent and the pool are closed and the database dropped after, whatever happens.
 */
export async function withOwners(prefix: string, handles: string[], work: (bench: OwnersBench) => Promise<void>): Promise<void> {
  const database = await createTestDatabase(prefix);
  let dataSource: DataSource | null = null;
  const endpoints: Endpoint[] = [];
  try {
    dataSource = await openDataSource(database.url, { poolSize: 2 });
    const owners = await createOwners(database.url, handles);
    const serve = async (which?: EndpointServer[]) => {
      const endpoint = await startEndpoint(database.url, which);
      endpoints.push(endpoint);
      return endpoint;
    };
    await work({ databaseUrl: database.url, dataSource, owners, serve });
  } finally {
    agent.destroy();
    for (const endpoint of endpoints) await endpoint.close();
    await dataSource?.destroy();
    await database.drop();
  }
}

/** The users the bench's owners belong to (their ids own the bulk-loaded dashboards), and a token for each. */
async function createOwners(databaseUrl: string, handles: string[]): Promise<Array<{ id: string; token: string }>> {
  const admin = await buildContainer({ ...loadSettings({ SECRET_KEY: 'dashpub-test-secret-key' }), databaseUrl, redisUrl: null }, { role: 'cli', refreshWorkers: false });
  try {
    const owners: Array<{ id: string; token: string }> = [];
    for (const handle of handles) {
      const user = await admin.container.get<AccountStore>(AccountStore).createUser({ handle, email: `${handle}@example.com`, passwordHash: null, plan: 'free' });
      owners.push({ id: user.id, token: (await mintAccessToken(admin.container, { userId: user.id })).access_token });
    }
    return owners;
  } finally {
    await admin.close();
  }
}

/** `dashpub serve` on the bench's database: the servers asked for, each its own process. */
async function startEndpoint(databaseUrl: string, which: EndpointServer[] = ['uncached', 'cached']): Promise<Endpoint> {
  const base = { DATABASE_URL: databaseUrl, REDIS_URL: '', LOG_LEVEL: 'warn' };
  const started: Partial<Record<EndpointServer, SpawnedServer>> = {};
  const close = () => Promise.all(Object.values(started).map((server) => server.close())).then(() => undefined);
  try {
    for (const server of which) started[server] = await spawnServer(server === 'uncached' ? { ...base, LIST_CACHE_MB: '0' } : base, 120_000);
  } catch (err) {
    await close();
    throw err;
  }
  return { servers: started as Record<EndpointServer, SpawnedServer>, close };
}

/** list_dashboards' arguments for a bench page: the default page of 50, from a slug on (a cursor) or of a tag. */
export function pageArguments(query: { afterSlug?: string; tag?: string }): Record<string, unknown> {
  return { ...(query.afterSlug ? { cursor: encodeCursor(query.afterSlug) } : {}), ...(query.tag ? { tag: query.tag } : {}) };
}

/**
 * One tool call on a kept-alive connection; answers its body. HTTP 200 and a result that is not a refusal are
 * checked by text, not by parsing (a list's JSON is read once per page by `listedCount`, outside the timed
 * calls), so the client's parsing is not timed.
 */
export async function callOverHttp(server: SpawnedServer, token: string, name: string, args: Record<string, unknown>): Promise<string> {
  const body = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } };
  const { status, text } = await postMcp(server.port, server.hosts.api, token, body, agent);
  if (status !== 200 || text.includes('"isError":true')) throw new Error(`${name} answered HTTP ${status}: ${text.slice(0, 300)}`);
  return text;
}

/** One list_dashboards call (`callOverHttp`). */
export function listOverHttp(server: SpawnedServer, token: string, args: Record<string, unknown>): Promise<string> {
  return callOverHttp(server, token, 'list_dashboards', args);
}

/** How many dashboards an answer lists; a refusal ends the bench, since it would time the wrong thing. */
export function listedCount(text: string): number {
  const answer = JSON.parse(text) as { result?: { isError?: boolean; structuredContent?: { dashboards?: unknown[] } } };
  const listed = answer.result?.structuredContent?.dashboards;
  if (!listed || answer.result?.isError) throw new Error(`list_dashboards refused: ${text.slice(0, 300)}`);
  return listed.length;
}
