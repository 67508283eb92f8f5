import type { Container } from 'inversify';
import { AccountStore, type Plan } from '../../application/ports/account-store.js';
import { RateLimiter } from '../../application/ports/rate-limiter.js';
import type { Principal } from '../../application/ports/token-verifier.js';
import { ToolRegistry, type ToolResult } from '../../shells/koa/mcp/tool-registry.js';
import { serveTools } from '../../shells/koa/mcp/tools/index.js';
import { DASHBOARD_TOOLS } from '../../shells/koa/mcp/tools/dashboard-tools.js';
import { VERSION_TOOLS } from '../../shells/koa/mcp/tools/version-tools.js';
import { CONNECTION_TOOLS } from '../../shells/koa/mcp/tools/connection-tools.js';
import { REFRESH_TOOLS } from '../../shells/koa/mcp/tools/refresh-tools.js';
import type { GrantLock } from '../../domain/scope.js';
import { aUser, aPrincipal, uniq } from './mothers.js';
import { sql } from './warehouse.js';

export { uniq };

export async function makeUser(container: Container, plan: Plan = 'pro', lock: GrantLock = { kind: 'personal' }) {
  const accounts = container.get<AccountStore>(AccountStore);
  const handle = uniq('u');
  const user = await aUser(accounts, { handle, plan });
  const principal: Principal = aPrincipal(user.id, { grantId: uniq('grant'), lock });
  return { user, principal };
}

/** The six tools of this room plus the dashboard tools, behind the real registry (argument checks, limits, error mapping). */
export function registry(container: Container): ToolRegistry {
  return new ToolRegistry(
    serveTools(container, [...DASHBOARD_TOOLS, ...VERSION_TOOLS, ...CONNECTION_TOOLS, ...REFRESH_TOOLS]),
    container.get<RateLimiter>(RateLimiter),
  );
}

export const text = (r: ToolResult) => r.content[0]!.text;
export function json(r: ToolResult): Record<string, any> {
  const t = text(r);
  const start = t.indexOf('BEGIN_JSON\n');
  const end = t.indexOf('\nEND_JSON');
  if (start < 0 || end < 0) throw new Error(`no JSON block in: ${t}`);
  return JSON.parse(t.slice(start + 'BEGIN_JSON\n'.length, end));
}

/** A small sales warehouse in the given (test) database. */
export async function seedSales(url: string): Promise<void> {
  await sql(
    url,
    `
      CREATE TABLE sales (day date NOT NULL, region text NOT NULL, amount numeric(10,2) NOT NULL);
      INSERT INTO sales VALUES
        ('2024-01-01', 'north', 100.50), ('2024-01-01', 'south', 80),
        ('2024-01-02', 'north', 120), ('2024-01-02', 'south', 95.25),
        ('2024-01-03', 'north', 130), ('2024-01-03', 'south', 70);
      CREATE SCHEMA secret;
      CREATE TABLE secret.notes (body text);`,
  );
}

export { sql };

export const salesSpec = (sqlText = 'SELECT day::text AS day, sum(amount) AS total FROM sales GROUP BY day ORDER BY day') => ({
  title: 'Sales',
  queries: { daily: { sql: sqlText } },
  panels: [
    { id: 'trend', type: 'line', title: 'Daily sales', query: 'daily', x: 'day', y: 'total' },
    { id: 'rows', type: 'table', query: 'daily' },
  ],
});
