import type { ParamRender, ParamRenderStore } from '../../application/ports/param-render-store.js';

/** The parameter render cache and budget of one process (the memory storage profile). */
export class MemoryParamRenderStore implements ParamRenderStore {
  private readonly renders = new Map<string, { versionId: string; entries: Map<string, ParamRender> }>();
  private readonly budgets = new Map<string, { window: number; used: number }>();

  async find(dashboardId: string, versionId: string, valuesKey: string): Promise<ParamRender | null> {
    const held = this.renders.get(dashboardId);
    return held?.versionId === versionId ? (held.entries.get(valuesKey) ?? null) : null;
  }

  async put(dashboardId: string, versionId: string, valuesKey: string, render: ParamRender, _at: Date, keep: number): Promise<void> {
    let held = this.renders.get(dashboardId);
    if (held?.versionId !== versionId) this.renders.set(dashboardId, (held = { versionId, entries: new Map() }));
    held.entries.delete(valuesKey);
    held.entries.set(valuesKey, render);
    for (const key of held.entries.keys()) {
      if (held.entries.size <= keep) break;
      held.entries.delete(key);
    }
  }

  async takeBudget(dashboardId: string, windowStart: Date, limit: number): Promise<boolean> {
    const window = windowStart.getTime();
    const budget = this.budgets.get(dashboardId);
    if (budget?.window !== window) {
      this.budgets.set(dashboardId, { window, used: limit > 0 ? 1 : 0 });
      return limit > 0;
    }
    if (budget.used >= limit) return false;
    budget.used++;
    return true;
  }
}
