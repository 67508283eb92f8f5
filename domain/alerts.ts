import type { Cell, Row } from './dashboard-spec.js';
import type { AlertOperator, SpecAlert } from './spec-alerts.js';

/**
 * What an alert's check finds in a refresh's rows, and how its state moves. Notifications are
 * edge-triggered: only a check that flips the state (ok to firing, firing to ok) is a change.
 */

export type AlertStatus = 'ok' | 'firing';

export interface AlertCheck {
  firing: boolean;
  /** The cell the condition was decided on (for "any", the first row that met it); null without rows. */
  value: Cell;
}

export interface AlertState {
  alertId: string;
  status: AlertStatus;
  value: Cell;
  /** When the status last flipped (or was first checked). */
  changedAt: Date;
  checkedAt: Date;
}

const NUMERIC = /^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/;

/** Numbers arrive as JSON numbers or, from PostgreSQL's numeric and bigint, as numeric strings. */
export function numberOf(cell: Cell): number | null {
  if (typeof cell === 'number') return Number.isFinite(cell) ? cell : null;
  if (typeof cell === 'string' && NUMERIC.test(cell)) return Number(cell);
  return null;
}

function equal(cell: Cell, threshold: Cell): boolean {
  if (typeof threshold === 'number') return numberOf(cell) === threshold;
  return cell === threshold;
}

export function meets(cell: Cell, op: AlertOperator, threshold: Cell): boolean {
  if (op === '=') return equal(cell, threshold);
  if (op === '!=') return !equal(cell, threshold);
  const n = numberOf(cell);
  if (n === null || typeof threshold !== 'number') return false;
  if (op === '>') return n > threshold;
  if (op === '<') return n < threshold;
  if (op === '>=') return n >= threshold;
  return n <= threshold;
}

const cellOf = (row: Row | undefined, column: string): Cell => (row && Object.hasOwn(row, column) ? (row[column] ?? null) : null);

/** `previous`: the value the last check saw, or undefined before the first check ("changes" then has nothing to differ from). */
export function evaluateAlert(alert: SpecAlert, rows: readonly Row[], previous: Cell | undefined): AlertCheck {
  if (alert.when === 'changes') {
    const value = cellOf(alert.row === 'first' ? rows[0] : rows.at(-1), alert.column);
    return { firing: previous !== undefined && !sameCell(previous, value), value };
  }
  const [op, threshold] = Object.entries(alert.when)[0] as [AlertOperator, Cell];
  if (alert.row === 'any') {
    const hit = rows.find((row) => meets(cellOf(row, alert.column), op, threshold));
    return hit ? { firing: true, value: cellOf(hit, alert.column) } : { firing: false, value: cellOf(rows.at(-1), alert.column) };
  }
  const value = cellOf(alert.row === 'first' ? rows[0] : rows.at(-1), alert.column);
  return { firing: rows.length > 0 && meets(value, op, threshold), value };
}

const sameCell = (a: Cell, b: Cell) => a === b || (numberOf(a) !== null && numberOf(a) === numberOf(b));

/**
 * Every alert's state after a refresh, and the ones whose status flipped (a new alert that fires at
 * its first check flips too). States of alerts no longer in the spec are dropped.
 */
export function nextAlertStates(
  alerts: readonly SpecAlert[],
  data: Record<string, readonly Row[]>,
  previous: readonly AlertState[],
  now: Date,
): { states: AlertState[]; changed: AlertState[] } {
  const before = new Map(previous.map((s) => [s.alertId, s]));
  const states: AlertState[] = [];
  const changed: AlertState[] = [];
  for (const alert of alerts) {
    const last = before.get(alert.id);
    const rows = Object.hasOwn(data, alert.query) ? data[alert.query]! : [];
    const check = evaluateAlert(alert, rows, last?.value);
    const status: AlertStatus = check.firing ? 'firing' : 'ok';
    const flipped = (last?.status ?? 'ok') !== status;
    const state = { alertId: alert.id, status, value: check.value, changedAt: flipped || !last ? now : last.changedAt, checkedAt: now };
    states.push(state);
    if (flipped) changed.push(state);
  }
  return { states, changed };
}
