export interface ParamRender {
  /** The page; for a key the caller marks as rows (ParamPages' `rows:`), the same draw's data.json text. */
  html: string;
  /** The content hash the page's ETag is made from. */
  sha256: string;
}

export const ParamRenderStore = Symbol.for('ParamRenderStore');
/**
 * Pages drawn on demand for parameter values other than the defaults, kept per (dashboard version,
 * normalised values) in storage every instance shares, and the per-minute budget of such draws.
 */
export interface ParamRenderStore {
  find(dashboardId: string, versionId: string, valuesKey: string): Promise<ParamRender | null>;
  /** Keeps at most `keep` renders of the dashboard (the newest), and none of its other versions. */
  put(dashboardId: string, versionId: string, valuesKey: string, render: ParamRender, at: Date, keep: number): Promise<void>;
  /** Counts one draw in the dashboard's minute starting `windowStart`; false once `limit` were counted there. */
  takeBudget(dashboardId: string, windowStart: Date, limit: number): Promise<boolean>;
}
