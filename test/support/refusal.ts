import { expect } from 'chai';
import { DomainError } from '../../domain/errors.js';

type ErrorClass<E extends Error> = new (...args: never[]) => E;

function caught<E extends Error>(err: unknown, type: ErrorClass<E>): E {
  expect(err, String(err)).to.be.instanceOf(type);
  return err as E;
}

/**
 * The error a refused call fails with, checked to be a `type` (DomainError unless told): pass a promise
 * to await its rejection, or a function to call it. Fails the test when the call succeeds or fails with
 * anything else. The one helper every suite uses for "this is refused, with this code and text".
 */
export function refusal<E extends Error = DomainError>(work: Promise<unknown>, type?: ErrorClass<E>): Promise<E>;
export function refusal<E extends Error = DomainError>(work: () => unknown, type?: ErrorClass<E>): E;
export function refusal<E extends Error>(work: Promise<unknown> | (() => unknown), type: ErrorClass<E> = DomainError as unknown as ErrorClass<E>): E | Promise<E> {
  if (typeof work !== 'function') {
    return work.then(
      () => {
        throw new Error(`expected a ${type.name}`);
      },
      (err: unknown) => caught(err, type),
    );
  }
  try {
    work();
  } catch (err) {
    return caught(err, type);
  }
  throw new Error(`expected a ${type.name}`);
}
