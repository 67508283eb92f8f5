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
