import type { Settings } from '../../application/ports/settings.js';
import { loadSettings } from '../../shells/config.js';

/**
 * Local defaults with overrides; never reads the developer's DATABASE_URL unless passed in. Private
 * warehouses are allowed because the tests' warehouses are databases on 127.0.0.1. A fixed SECRET_KEY,
 * as every PostgreSQL deployment must have one (tests of the key file build their SecretBox directly).
 */
/** The SECRET_KEY test processes share, so a CLI and a server of one test open each other's secrets. */
export const TEST_SECRET_KEY = 'dashpub-test-secret-key';

export function testSettings(overrides: Partial<Settings> = {}): Settings {
  // Warnings and errors only: a request line per call would bury the test report.
  return { ...loadSettings({}), redisUrl: null, databaseUrl: null, allowPrivateWarehouses: true, secretKey: TEST_SECRET_KEY, logLevel: 'warn', ...overrides };
}
