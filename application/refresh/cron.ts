import { CronExpressionParser } from 'cron-parser';
import { invalid, typeName } from '../../domain/errors.js';

/** A schedule as set_refresh_schedule takes it: exactly five cron fields, read in an IANA time zone. */
export function parseSchedule(cron: unknown, timezone: unknown): { cron: string; timezone: string } {
  if (typeof cron !== 'string') throw invalid(`schedule must be a 5-field cron string, or null to clear it (got ${typeName(cron)})`);
  const fields = cron.trim().split(/\s+/);
  if (fields.length !== 5 || fields[0] === '') {
    throw invalid(`schedule "${cron}" must have exactly 5 fields (minute hour day-of-month month day-of-week), e.g. "0 * * * *"`);
  }
  const zone = timezone === undefined || timezone === null ? 'UTC' : timezone;
  if (typeof zone !== 'string' || !isTimeZone(zone)) throw invalid(`timezone must be an IANA time zone such as "UTC" or "Europe/Paris" (got ${JSON.stringify(zone)})`);
  const normalized = fields.join(' ');
  try {
    CronExpressionParser.parse(normalized, { tz: zone, strict: false });
  } catch (err) {
    throw invalid(`schedule "${cron}" is not a valid cron expression: ${(err as Error).message}`);
  }
  return { cron: normalized, timezone: zone };
}

/** The next `count` run times strictly after `after`. */
export function nextRuns(cron: string, timezone: string, after: Date, count: number): Date[] {
  const expression = CronExpressionParser.parse(cron, { tz: timezone, currentDate: after });
  return expression.take(count).map((d) => d.toDate());
}

function isTimeZone(zone: string): boolean {
  if (zone === '') return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

const DAY_MINUTES = 24 * 60;
const DAY_MS = DAY_MINUTES * 60_000;
/** How far ahead two consecutive run days are looked for: a leap-day cycle, and at most this many run days. */
const DAY_HORIZON_MS = 4 * 366 * DAY_MS;
const DAY_RUNS_LOOKED_AT = 400;

/**
 * The shortest wall-clock gap, in minutes, between two consecutive runs of a schedule (one already
 * through parseSchedule). Every run day has the same times of day, so the gaps within a day come from
 * the minute and hour fields; the gap across midnight counts only when two consecutive calendar days
 * can both run, which the day fields are asked about over the next run days (up to four years).
 * Daylight-saving shifts are not counted: they move a run by an hour twice a year at most.
 */
export function shortestGapMinutes(cron: string, after: Date): number {
  const { fields } = CronExpressionParser.parse(cron, { tz: 'UTC', strict: false });
  const minutes = [...new Set(fields.minute.values as number[])].sort((a, b) => a - b);
  const hours = [...new Set(fields.hour.values as number[])].sort((a, b) => a - b);
  const times = hours.flatMap((h) => minutes.map((m) => h * 60 + m));
  let shortest = DAY_MINUTES * 2;
  for (let i = 1; i < times.length; i += 1) shortest = Math.min(shortest, times[i]! - times[i - 1]!);
  const acrossMidnight = DAY_MINUTES - times[times.length - 1]! + times[0]!;
  if (acrossMidnight < shortest && consecutiveDaysRun(cron, after)) shortest = acrossMidnight;
  return shortest;
}

/** Whether two consecutive calendar days both run, judged by the day fields alone over the horizon. */
function consecutiveDaysRun(cron: string, after: Date): boolean {
  const [, , dayOfMonth, month, dayOfWeek] = cron.split(' ');
  const days = CronExpressionParser.parse(`0 0 ${dayOfMonth} ${month} ${dayOfWeek}`, { tz: 'UTC', currentDate: after, strict: false });
  const end = after.getTime() + DAY_HORIZON_MS;
  let previous = days.next().getTime();
  for (let i = 0; i < DAY_RUNS_LOOKED_AT && previous < end; i += 1) {
    const day = days.next().getTime();
    if (day - previous === DAY_MS) return true;
    previous = day;
  }
  return false;
}
