import { expect } from 'chai';
import { shortestGapMinutes } from '../../application/refresh/cron.js';
import { checkScheduleInterval } from '../../domain/refresh-interval.js';
import { refusal } from '../support/refusal.js';

describe('domain: minimum refresh interval per plan', () => {
  const intervals = { free: 15, pro: 1 };

  it('accepts a gap at the minimum and refuses one under it, naming the plan, the minimum and a slower cron', () => {
    checkScheduleInterval('*/15 * * * *', 15, 'free', intervals);
    checkScheduleInterval('* * * * *', 1, 'pro', intervals);
    const refused = refusal(() => checkScheduleInterval('*/5 * * * *', 5, 'free', intervals));
    expect(refused.code).to.equal('invalid_argument');
    expect(refused.message).to.equal(
      'schedule "*/5 * * * *" runs as often as every 5 minutes; the free plan refreshes at most every 15 minutes. ' +
        'Choose a slower schedule such as "*/15 * * * *", or move to the pro plan (every 1 minute).',
    );
  });

  it('suggests an hourly cron for whole hours, nothing when no cron says it evenly, and no upgrade on pro', () => {
    expect(refusal(() => checkScheduleInterval('0 * * * *', 60, 'pro', { free: 240, pro: 120 })).message).to.equal(
      'schedule "0 * * * *" runs as often as every 60 minutes; the pro plan refreshes at most every 120 minutes. Choose a slower schedule such as "0 */2 * * *".',
    );
    expect(refusal(() => checkScheduleInterval('* * * * *', 1, 'free', { free: 7, pro: 7 })).message).to.match(/at most every 7 minutes\. Choose a slower schedule\.$/);
  });
});

describe('application/refresh/cron: shortest gap between runs', () => {
  const now = new Date('2026-03-01T12:00:00Z');
  for (const [cron, gap] of [
    ['* * * * *', 1],
    ['0,1 * * * *', 1],
    ['*/7 * * * *', 4],
    ['*/15 * * * *', 15],
    ['0 0,23 * * *', 60],
    ['0,50 0,23 * * *', 10],
    // Mondays only: the 23:50 → 00:00 gap never happens.
    ['0,50 0,23 * * 1', 50],
    // 28 and 29 February are consecutive only in leap years.
    ['0,58 0,23 28,29 2 *', 2],
    ['30 1 * * *', 1440],
  ] as const) {
    it(`"${cron}": ${gap} minutes`, () => expect(shortestGapMinutes(cron, now)).to.equal(gap));
  }
});
