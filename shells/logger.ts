import { AsyncLocalStorage } from 'node:async_hooks';
import pino from 'pino';
import type { Settings } from '../application/ports/settings.js';

export type Logger = pino.Logger;

export interface LogContext {
  reqId: string;
}

/**
 * Fields every log line written while handling one HTTP request carries (its `reqId`): the server runs
 * a request's work inside this context (enterLogContext below), and the logger's mixin reads it, so code
 * deep in an adapter logs with the request id without being handed a child logger.
 */
export const logContext = new AsyncLocalStorage<LogContext>();

let inside = 0;

/**
 * Runs `work` inside the log context `context` until `release` is called (once the work and whatever it
 * started has ended; calling it again does nothing). On Node 20 an AsyncLocalStorage in use turns on
 * async_hooks for the whole process, and every promise made after that pays a hook call: 13–15 % of a
 * `tools/list`'s CPU (docs/decisions/0022-logging-and-request-ids.md). So the storage is
 * switched off whenever no request is inside it, and the work that logs nothing but its request line (a
 * dashboard file, a fixed MCP answer for a remembered token) runs outside it. Work still running for a
 * request after its release logs without the id.
 */
export function enterLogContext<T>(context: LogContext, work: () => T): { value: T; release: () => void } {
  inside++;
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    if (--inside === 0) logContext.disable();
  };
  try {
    return { value: logContext.run(context, work), release };
  } catch (err) {
    release();
    throw err;
  }
}

/**
 * enterLogContext for work that has ended when its promise settles. Without a context (the caller already
 * runs in one, or in none by choice) the work just runs.
 */
export function inLogContext<T>(context: LogContext | undefined, work: () => Promise<T>): Promise<T> {
  if (!context) return work();
  const { value, release } = enterLogContext(context, work);
  value.then(release, release);
  return value;
}

/**
 * One JSON logger for the process (pino, to stdout). What may never be logged (tokens, codes, secrets,
 * passwords, warehouse URLs, bodies) is kept out by not passing it; the redact list is a second net
 * for the field names those values travel under.
 */
export function createLogger(settings: Pick<Settings, 'logLevel'>, destination?: pino.DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level: settings.logLevel,
    base: { pid: process.pid },
    mixin: () => logContext.getStore() ?? {},
    serializers: { err: serializeError },
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers.cookie',
        'headers.authorization',
        'headers.cookie',
        '*.access_token',
        '*.refresh_token',
        '*.code',
        '*.code_verifier',
        '*.password',
        '*.client_secret',
        '*.secret',
        '*.token',
        '*.url',
      ],
      censor: '[redacted]',
    },
  };
  return destination ? pino(options, destination) : pino(options);
}

/**
 * pino's error serializer without the values a failed query was given: TypeORM's QueryFailedError
 * carries its `parameters`, which are file bodies, token hashes and sealed secrets.
 */
function serializeError(err: unknown): unknown {
  if (!(err instanceof Error)) return err;
  const out = pino.stdSerializers.err(err) as unknown as Record<string, unknown>;
  delete out.parameters;
  const driver = out.driverError as Record<string, unknown> | undefined;
  if (driver && typeof driver === 'object') out.driverError = { ...driver, parameters: undefined };
  return out;
}
