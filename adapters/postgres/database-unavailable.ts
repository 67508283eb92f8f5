/**
 * Whether an error thrown by a store means the database was not there (restarting, unreachable, out
 * of connections) rather than that the request was wrong or the code is. SQLSTATE classes 08
 * (connection exception) and 57P (operator intervention: shutdown, crash, starting up), 53300 (too many
 * connections), the socket errors, and the messages pg gives for a connection that died mid-query.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  for (let current: unknown = err, depth = 0; current && typeof current === 'object' && depth < 4; depth++) {
    const { code, message } = current as { code?: unknown; message?: unknown };
    if (typeof code === 'string' && (code.startsWith('08') || code.startsWith('57P') || code === '53300' || SOCKET_CODES.has(code))) return true;
    if (typeof message === 'string' && DEAD_CONNECTION.test(message)) return true;
    current = (current as { driverError?: unknown; cause?: unknown }).driverError ?? (current as { cause?: unknown }).cause;
  }
  return false;
}

const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTCONN']);
// TypeORM releases a query runner whose connection died; the transaction's next query then says so.
const DEAD_CONNECTION = /Connection terminated|query runner (was )?already released|Query runner already released|connection timeout|Client has encountered a connection error|Client was closed|terminating connection|the database system is (starting up|shutting down|in recovery mode)/i;
