export const SecretTokens = Symbol.for('SecretTokens');
/**
 * The cryptography of bearer secrets (tokens, codes, session cookies, request handles): a secret is
 * generated once, handed out, and only its digest is ever stored; lookups go by digest and any
 * comparison of digests is constant-time.
 */
export interface SecretTokens {
  /** A fresh unguessable token: 256 random bits, base64url (43 characters). */
  generate(): string;
  /** Whether a value has the shape `generate` gives, so anything else is refused without a lookup. */
  wellFormed(value: unknown): value is string;
  /** The digest stored in place of a token: SHA-256, hex. */
  digest(token: string): string;
  /** Constant-time equality of two strings (digests). */
  same(a: string, b: string): boolean;
  /** PKCE S256 (RFC 7636 §4.2): base64url(SHA-256(ASCII(verifier))). */
  s256(verifier: string): string;
}
