export const SecretSealer = Symbol.for('SecretSealer');
/**
 * Authenticated encryption for short-lived values the browser carries (e.g. a sign-in attempt in a
 * cookie): the browser can neither read nor alter them. `open` throws on anything it did not seal.
 */
export interface SecretSealer {
  seal(plaintext: string): string;
  open(sealed: string): string;
}
