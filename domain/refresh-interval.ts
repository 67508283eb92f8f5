import { invalid, type DomainError } from './errors.js';

/** The plans an account can be on (as the account store records them). */
export type PlanName = 'free' | 'pro';

/** The shortest time, in minutes, a plan allows between two scheduled refreshes (settings, per plan). */
export type MinimumIntervals = Readonly<Record<PlanName, number>>;

const minutes = (n: number) => `${n} minute${n === 1 ? '' : 's'}`;

/** A schedule the refusal can suggest instead: every `minimum` minutes, when a cron can say so evenly. */
function slowerExample(minimum: number): string | null {
  if (minimum < 60 && 60 % minimum === 0) return minimum === 1 ? '* * * * *' : `*/${minimum} * * * *`;
  if (minimum % 60 === 0 && 24 % (minimum / 60) === 0) return minimum === 60 ? '0 * * * *' : `0 */${minimum / 60} * * *`;
  return null;
}

/**
 * Refuses a schedule whose shortest gap between runs is under the plan's minimum, naming both, so an
 * account cannot keep a sandbox or a warehouse busy every minute.
 */
export function checkScheduleInterval(cron: string, shortestGapMinutes: number, plan: PlanName, intervals: MinimumIntervals): void {
  const minimum = intervals[plan];
  if (shortestGapMinutes >= minimum) return;
  throw scheduleTooFrequent(cron, shortestGapMinutes, plan, intervals);
}

function scheduleTooFrequent(cron: string, gap: number, plan: PlanName, intervals: MinimumIntervals): DomainError {
  const minimum = intervals[plan];
  const example = slowerExample(minimum);
  const upgrade = plan === 'free' && intervals.pro < minimum ? `, or move to the pro plan (every ${minutes(intervals.pro)})` : '';
  return invalid(
    `schedule "${cron}" runs as often as every ${minutes(gap)}; the ${plan} plan refreshes at most every ${minutes(minimum)}. ` +
      `Choose a slower schedule${example ? ` such as "${example}"` : ''}${upgrade}.`,
  );
}
