import { DomainError } from './errors.js';

export const RATE_WINDOW_SECONDS = 60;

/** The four independent fixed ceilings of the spec, each over a 60-second window. */
export const RATE_LIMITS = {
  publish_dashboard: { points: 60, key: 'user' },
  validate_cube_sql: { points: 120, key: 'user' },
  trigger_refresh: { points: 20, key: 'user' },
  register: { points: 30, key: 'ip' },
} as const;

export type RateLimitedAction = keyof typeof RATE_LIMITS;

export const toolRateLimited = (tool: string) =>
  new DomainError('rate_limited', `Rate limit exceeded for ${tool}: too many requests. Wait about 60 seconds and try again.`);

export const refreshBudgetExhausted = () =>
  new DomainError('rate_limited', 'Too many refresh triggers right now. Wait about a minute and try again.');
