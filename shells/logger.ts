import { AsyncLocalStorage } from 'node:async_hooks';
import pino from 'pino';
import type { Settings } from '../application/ports/settings.js';

export type Logger = pino.Logger;

/**
 * Fields every log line written while handling one HTTP request carries (its `reqId`): the server runs
 * each request inside `logContext.run(...)`, and the logger's mixin reads it, so code deep in an adapter
 * logs with the request id without being handed a child logger.
 */
export const logContext = new AsyncLocalStorage<{ reqId: string }>();

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
