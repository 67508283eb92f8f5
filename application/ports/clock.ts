export const Clock = Symbol.for('Clock');
export interface Clock {
  now(): Date;
}
