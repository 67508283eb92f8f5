import { createHmac, timingSafeEqual } from 'node:crypto';
import { injectable } from 'inversify';
import type { EmbedSigner } from '../../application/ports/embed-signer.js';

/** EmbedSigner on node:crypto. */
@injectable()
export class HmacEmbedSigner implements EmbedSigner {
  sign(secret: string, message: string): string {
    return createHmac('sha256', secret).update(message, 'utf8').digest('hex');
  }

  verify(secret: string, message: string, signature: string): boolean {
    const expected = Buffer.from(this.sign(secret, message), 'utf8');
    const given = Buffer.from(signature, 'utf8');
    return given.length === expected.length && timingSafeEqual(given, expected);
  }
}
