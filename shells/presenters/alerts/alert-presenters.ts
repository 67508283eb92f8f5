import type { AlertView } from '../../../application/alerts/alert-states.js';
import type { Cell } from '../../../domain/dashboard-spec.js';

/** get_dashboard's `alerts`: each alert of the spec with its state and when it last changed. */
export const alertStatesJson = (alerts: AlertView[]) =>
  alerts.map((a) => ({
    id: a.id,
    state: a.status,
    value: a.value,
    message: a.message,
    changed_at: a.changedAt?.toISOString() ?? null,
    checked_at: a.checkedAt?.toISOString() ?? null,
  }));

export const alertValueText = (value: Cell): string => (value === null ? 'no value' : typeof value === 'string' ? value : JSON.stringify(value));

/** The sentence get_dashboard adds when the spec declares alerts; none otherwise, so other answers read as before. */
export function alertLines(alerts: ReturnType<typeof alertStatesJson>): string[] {
  if (alerts.length === 0) return [];
  const one = (a: (typeof alerts)[number]) =>
    a.state === 'unchecked' ? `"${a.id}" not checked yet (checked after each refresh)` : `"${a.id}" ${a.state} since ${a.changed_at} (value ${alertValueText(a.value)})`;
  return [`Alerts: ${alerts.map(one).join('; ')}.`];
}
