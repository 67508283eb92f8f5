import { expect } from 'chai';
import { parseDuration } from '../../domain/durations.js';
import { DomainError } from '../../domain/errors.js';
import { checkShareExpiry, checkShareLabel, checkSharePassword, shareLinkStatus } from '../../domain/share-links.js';

const now = new Date('2026-06-01T12:00:00Z');
const refusal = (work: () => unknown): string => {
  try {
    work();
  } catch (error) {
    if (error instanceof DomainError && error.code === 'invalid_argument') return error.message;
    throw error;
  }
  throw new Error('expected a refusal');
};

describe('domain: durations', () => {
  it('reads a whole number and a unit', () => {
    expect(parseDuration('30m')).to.equal(30 * 60_000);
    expect(parseDuration('12h')).to.equal(12 * 3_600_000);
    expect(parseDuration(' 7d ')).to.equal(7 * 86_400_000);
    expect(parseDuration('2w')).to.equal(14 * 86_400_000);
  });

  it('refuses anything else', () => {
    for (const bad of ['', '7', 'd', '0d', '-1d', '1.5d', '7 d', '7D', '7y', '1234567d', '7dd']) expect(parseDuration(bad), bad).to.equal(null);
  });
});

describe('domain: share links', () => {
  it('is expired from its expiry on, else paused or active', () => {
    expect(shareLinkStatus({ paused: false, expiresAt: null }, now)).to.equal('active');
    expect(shareLinkStatus({ paused: true, expiresAt: null }, now)).to.equal('paused');
    expect(shareLinkStatus({ paused: false, expiresAt: new Date(now.getTime() + 1) }, now)).to.equal('active');
    expect(shareLinkStatus({ paused: false, expiresAt: now }, now)).to.equal('expired');
    expect(shareLinkStatus({ paused: true, expiresAt: now }, now)).to.equal('expired');
  });

  it('trims labels, keeps empty ones as none, and refuses long or control-character ones', () => {
    expect(checkShareLabel('  board  ')).to.equal('board');
    expect(checkShareLabel('   ')).to.equal(null);
    expect(checkShareLabel(undefined)).to.equal(null);
    expect(refusal(() => checkShareLabel('x'.repeat(101)))).to.equal('label must be at most 100 characters');
    expect(refusal(() => checkShareLabel('a\nb'))).to.equal('label must not contain control characters');
  });

  it('takes passwords of 10 to 200 characters; none when empty', () => {
    expect(checkSharePassword('')).to.equal(null);
    expect(checkSharePassword('ten chars!')).to.equal('ten chars!');
    expect(refusal(() => checkSharePassword('nine char'))).to.equal('password must be at least 10 characters');
    expect(refusal(() => checkSharePassword('x'.repeat(201)))).to.equal('password must be at most 200 characters');
  });

  it('takes an expiry ahead of now and within a year', () => {
    expect(checkShareExpiry(null, now)).to.equal(null);
    expect(checkShareExpiry(new Date(now.getTime() + 60_000), now)?.getTime()).to.equal(now.getTime() + 60_000);
    expect(refusal(() => checkShareExpiry(now, now))).to.equal('expiry must be in the future');
    expect(refusal(() => checkShareExpiry(new Date('nope'), now))).to.equal('expiry is not a valid date');
    expect(refusal(() => checkShareExpiry(new Date(now.getTime() + 367 * 86_400_000), now))).to.equal('expiry must be within a year');
  });
});
