import pino from 'pino';
import type { Settings } from '../application/ports/settings.js';

export type Logger = pino.Logger;

/** One JSON logger for the process. Secrets never reach it: tokens are redacted by header name. */
export function createLogger(settings: Pick<Settings, 'logLevel'>): Logger {
  return pino({
    level: settings.logLevel,
    redact: ['req.headers.authorization', 'req.headers.cookie', '*.access_token', '*.refresh_token', '*.code', '*.password'],
  });
}
