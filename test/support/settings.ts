import type { Settings } from '../../application/ports/settings.js';
import { loadSettings } from '../../shells/config.js';

/** Local defaults with overrides; never reads the developer's DATABASE_URL unless passed in. */
export function testSettings(overrides: Partial<Settings> = {}): Settings {
  return { ...loadSettings({}), redisUrl: null, databaseUrl: null, ...overrides };
}
