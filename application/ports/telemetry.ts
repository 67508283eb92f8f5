export const Telemetry = Symbol.for('Telemetry');

export type ToolOutcome = 'ok' | 'refused' | 'error';
/** `missing`: no bearer token; `invalid`: unknown, expired or revoked; `error`: the check itself failed. */
export type VerificationOutcome = 'valid' | 'invalid' | 'missing' | 'error';
/** A list_dashboards answer: `hit` from memory, `miss` built and remembered, `bypass` built (cache off, or no listing version). */
export type ListCacheOutcome = 'hit' | 'miss' | 'bypass';

/**
 * What the service counts for operators (exported as Prometheus metrics on the admin listener). A port,
 * so shells and use cases record without knowing the metrics library; every method is cheap and never throws.
 */
export interface Telemetry {
  httpRequest(surface: string, status: number, seconds: number): void;
  toolCall(tool: string, outcome: ToolOutcome, seconds: number): void;
  /** A request refused by a rate limit (`publish_dashboard`, `register`, `refresh_budget` …). */
  rateLimitRefused(limit: string): void;
  tokenVerification(outcome: VerificationOutcome): void;
  listCache(outcome: ListCacheOutcome): void;
  refreshRun(trigger: string, outcome: string, seconds: number): void;
  dashboardServed(status: number): void;
}

/** Records nothing: for containers and tests that have no metrics listener. */
export const noTelemetry: Telemetry = {
  httpRequest: () => undefined,
  toolCall: () => undefined,
  rateLimitRefused: () => undefined,
  tokenVerification: () => undefined,
  listCache: () => undefined,
  refreshRun: () => undefined,
  dashboardServed: () => undefined,
};
