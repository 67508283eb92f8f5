export const EmbedSigner = Symbol.for('EmbedSigner');
/** HMAC-SHA256 for embed URLs (domain/embeds.ts says what is signed). */
export interface EmbedSigner {
  /** The signature of `message` under `secret`, lowercase hex. */
  sign(secret: string, message: string): string;
  /** Whether `signature` is `message`'s under `secret`, compared in constant time. */
  verify(secret: string, message: string, signature: string): boolean;
}
