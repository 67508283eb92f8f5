import { expect } from 'chai';
import { DomainError } from '../../domain/errors.js';

/** The DomainError `promise` rejects with; fails the test when it resolves or throws anything else. */
export async function refusal(promise: Promise<unknown>): Promise<DomainError> {
  try {
    await promise;
  } catch (err) {
    expect(err, String(err)).to.be.instanceOf(DomainError);
    return err as DomainError;
  }
  throw new Error('expected a refusal');
}
