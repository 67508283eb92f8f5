import * as crypto from 'node:crypto';
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { injectable } from 'inversify';
import type { SecretTokens } from '../../application/ports/secret-tokens.js';

const sha256 = (value: string) => createHash('sha256').update(value, 'utf8');
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;
const oneShotHash = typeof crypto.hash === 'function' ? crypto.hash : undefined;

/** SecretTokens on node:crypto. */
@injectable()
export class NodeSecretTokens implements SecretTokens {
  generate(): string {
    return randomBytes(32).toString('base64url');
  }

  wellFormed(value: unknown): value is string {
    return typeof value === 'string' && TOKEN_SHAPE.test(value);
  }

  digest(token: string): string {
    // The one-shot hash (Node 20.12+) costs a third of a Hash object; every MCP request digests its token.
    return oneShotHash ? oneShotHash('sha256', token, 'hex') : sha256(token).digest('hex');
  }

  same(a: string, b: string): boolean {
    // Hashing both first gives equal lengths, so even a length mismatch takes the same time.
    return timingSafeEqual(sha256(a).digest(), sha256(b).digest());
  }

  s256(verifier: string): string {
    return createHash('sha256').update(verifier, 'ascii').digest('base64url');
  }
}
