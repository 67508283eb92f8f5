import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const VERSION = 'v1';

export const SECRET_KEY_REQUIRED =
  'SECRET_KEY must be set when DATABASE_URL is: every instance and the dashpub CLI work on the one database, ' +
  'so they need the one key that encrypts warehouse credentials (any long random string, the same everywhere).';

/**
 * AES-256-GCM for secrets at rest (warehouse URLs). The key comes from SECRET_KEY (hashed to 32 bytes,
 * so any passphrase works) or from a key file generated once in DATA_DIR; losing it makes the stored
 * secrets unreadable, which is the point. A `purpose` derives a separate key from the same secret
 * (HMAC-SHA-256), so values sealed for one use (a sign-in cookie) never open as another (a warehouse URL).
 */
export class SecretBox {
  private cached: Buffer | undefined;

  private constructor(
    private readonly loadKey: () => string,
    private readonly purpose: string | null = null,
  ) {}

  static fromKey(secret: string, purpose?: string): SecretBox {
    return new SecretBox(() => secret, purpose ?? null);
  }

  /**
   * The key file is read (or made) on first use, so commands that never touch a secret never create it.
   * On PostgreSQL there is no key file: instances and the CLI share the database but not a data
   * directory, so a generated key would differ between them and each would fail to open what another
   * sealed. SECRET_KEY is then required, and its absence is said plainly on first use.
   */
  static fromSettings(settings: { secretKey: string | null; dataDir: string; databaseUrl?: string | null }, purpose?: string): SecretBox {
    if (settings.secretKey) return SecretBox.fromKey(settings.secretKey, purpose);
    if (settings.databaseUrl) {
      return new SecretBox(() => {
        throw new Error(SECRET_KEY_REQUIRED);
      }, purpose ?? null);
    }
    return new SecretBox(() => keyFile(settings.dataDir), purpose ?? null);
  }

  seal(plaintext: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key(), iv);
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [VERSION, iv.toString('base64'), cipher.getAuthTag().toString('base64'), body.toString('base64')].join(':');
  }

  open(sealed: string): string {
    const [version, iv, tag, body] = sealed.split(':');
    if (version !== VERSION || !iv || !tag || body === undefined) throw new Error('sealed secret has an unknown format');
    const decipher = createDecipheriv('aes-256-gcm', this.key(), Buffer.from(iv, 'base64'));
    decipher.setAuthTag(Buffer.from(tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64')), decipher.final()]).toString('utf8');
  }

  private key(): Buffer {
    // Without a purpose the key stays what it always was, so sealed warehouse URLs keep opening.
    this.cached ??= this.purpose === null
      ? createHash('sha256').update(this.loadKey(), 'utf8').digest()
      : createHmac('sha256', this.loadKey()).update(this.purpose, 'utf8').digest();
    return this.cached;
  }
}

function keyFile(dataDir: string): string {
  const file = join(dataDir, 'secret.key');
  if (!existsSync(file)) {
    mkdirSync(dataDir, { recursive: true });
    // 'wx' refuses to overwrite a key another process wrote meanwhile; that one then wins.
    try {
      writeFileSync(file, randomBytes(32).toString('hex') + '\n', { flag: 'wx', mode: 0o600 });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    chmodSync(file, 0o600);
  }
  return readFileSync(file, 'utf8').trim();
}
