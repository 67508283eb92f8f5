import { expect } from 'chai';
import { refusal } from '../support/refusal.js';
import { parseDashboardSpec, type Row } from '../../domain/dashboard-spec.js';
import { evaluateAlert, nextAlertStates, type AlertState } from '../../domain/alerts.js';
import { MAX_ALERTS, type SpecAlert } from '../../domain/spec-alerts.js';
import { applySpecPatch } from '../../domain/spec-patch.js';

const base = (alerts: unknown): Record<string, unknown> => ({
  title: 'Sales',
  queries: { daily: { sql: 'SELECT 1' } },
  data: { goals: [{ month: '2025-01', target: 10 }] },
  panels: [{ id: 'rows', type: 'table', query: 'daily' }],
  alerts,
});
const alert = (over: Record<string, unknown> = {}) => ({ id: 'high', query: 'daily', column: 'total', when: { '>': 100 }, message: 'Sales above 100', ...over });
const message = (alerts: unknown) => refusal(() => parseDashboardSpec(base(alerts))).message;

describe('domain: spec alerts', () => {
  it('accepts alerts on queries and inline data, with "last" as the default row', () => {
    const spec = parseDashboardSpec(base([alert(), alert({ id: 'moved', query: 'goals', column: 'target', row: 'first', when: 'changes' }), alert({ id: 'named', row: 'any', when: { '=': 'north' } })]));
    expect(spec.alerts).to.deep.equal([
      { id: 'high', query: 'daily', column: 'total', row: 'last', when: { '>': 100 }, message: 'Sales above 100' },
      { id: 'moved', query: 'goals', column: 'target', row: 'first', when: 'changes', message: 'Sales above 100' },
      { id: 'named', query: 'daily', column: 'total', row: 'any', when: { '=': 'north' }, message: 'Sales above 100' },
    ]);
    expect(parseDashboardSpec(JSON.stringify(spec)).alerts).to.deep.equal(spec.alerts);
    expect(parseDashboardSpec({ ...base(undefined), alerts: null }).alerts).to.equal(undefined);
  });

  it('refuses each mistake with one sentence naming the field', () => {
    expect(message({})).to.equal('spec.alerts must be an array of alerts (got object)');
    expect(message([alert(), alert()])).to.equal('spec.alerts[1].id "high" is already used by spec.alerts[0]; alert ids must be unique');
    expect(message([alert({ query: 'weekly' })])).to.equal('spec.alerts[0].query "weekly" does not name a key of spec.queries or spec.data (known: daily, goals)');
    expect(message([alert({ query: 'goals', column: 'total' })])).to.equal('spec.alerts[0].column "total" is not a column of spec.data.goals (columns: month, target)');
    expect(message([alert({ row: 'middle' })])).to.equal('spec.alerts[0].row must be one of first, last, any (got "middle")');
    expect(message([alert({ when: { '>': '100' } })])).to.equal('spec.alerts[0].when[">"] must be a number (got "100")');
    expect(message([alert({ when: { '>': 1, '<': 5 } })])).to.include('spec.alerts[0].when must have exactly one operator (got 2)');
    expect(message([alert({ when: { '~': 1 } })])).to.equal('spec.alerts[0].when has unknown operator "~" (allowed: >, <, >=, <=, =, !=)');
    expect(message([alert({ when: 'sometimes' })])).to.include('spec.alerts[0].when must be { "<operator>": <value> }');
    expect(message([alert({ when: { '=': [1] } })])).to.equal('spec.alerts[0].when["="] must be a string, number, boolean or null (got array)');
    expect(message([alert({ row: 'any', when: 'changes' })])).to.equal('spec.alerts[0].when "changes" needs row "first" or "last" (one value to compare with the last refresh\'s)');
    expect(message([alert({ message: undefined })])).to.equal('spec.alerts[0].message is required');
    expect(message([alert({ message: 'x'.repeat(501) })])).to.equal('spec.alerts[0].message is 501 characters, over the 500-character limit');
    expect(message([alert({ id: 'no spaces' })])).to.equal('spec.alerts[0].id "no spaces" must match [A-Za-z0-9_-] (1 to 64 characters)');
    expect(message([alert({ extra: 1 })])).to.equal('spec.alerts[0] has unknown key "extra" (allowed: id, query, column, row, when, message)');
    expect(message(Array.from({ length: MAX_ALERTS + 1 }, (_, i) => alert({ id: `a${i}` })))).to.equal(`spec.alerts has ${MAX_ALERTS + 1} alerts, over the limit of ${MAX_ALERTS}`);
  });

  it('are set and removed by a patch, checked by the same parser', () => {
    const current = base([alert()]);
    const set = applySpecPatch(current, [{ op: 'set_alert', alert: alert({ id: 'low', when: { '<': 5 }, message: 'Low' }) }]).spec;
    expect(set.alerts!.map((a) => a.id)).to.deep.equal(['high', 'low']);
    expect(applySpecPatch(current, [{ op: 'remove_alert', id: 'high' }]).spec.alerts).to.deep.equal([]);
    expect(refusal(() => applySpecPatch(current, [{ op: 'set_alert', alert: alert({ query: 'nope' }) }])).message).to.include('does not name a key of spec.queries or spec.data');
  });
});

describe('domain: alert evaluation', () => {
  const rows: Row[] = [{ day: '1', total: '80.50' }, { day: '2', total: 120 }, { day: '3', total: '95' }];
  const of = (over: Partial<SpecAlert>): SpecAlert => ({ id: 'a', query: 'daily', column: 'total', row: 'last', when: { '>': 100 }, message: 'm', ...over });

  it('compares the chosen row\'s cell, reading numeric strings as numbers', () => {
    expect(evaluateAlert(of({}), rows, undefined)).to.deep.equal({ firing: false, value: '95' });
    expect(evaluateAlert(of({ when: { '>=': 95 } }), rows, undefined)).to.deep.equal({ firing: true, value: '95' });
    expect(evaluateAlert(of({ row: 'first', when: { '<': 81 } }), rows, undefined)).to.deep.equal({ firing: true, value: '80.50' });
    expect(evaluateAlert(of({ row: 'any' }), rows, undefined)).to.deep.equal({ firing: true, value: 120 });
    expect(evaluateAlert(of({ row: 'any', when: { '>': 500 } }), rows, undefined)).to.deep.equal({ firing: false, value: '95' });
    expect(evaluateAlert(of({ when: { '=': 95 } }), rows, undefined).firing).to.equal(true);
    expect(evaluateAlert(of({ when: { '!=': 95 } }), rows, undefined).firing).to.equal(false);
    expect(evaluateAlert(of({ column: 'day', when: { '=': '3' } }), rows, undefined).firing).to.equal(true);
  });

  it('never fires a threshold on no rows, a missing column or a non-number', () => {
    expect(evaluateAlert(of({ when: { '<': 1 } }), [], undefined)).to.deep.equal({ firing: false, value: null });
    expect(evaluateAlert(of({ column: 'nope', when: { '<': 1 } }), rows, undefined)).to.deep.equal({ firing: false, value: null });
    expect(evaluateAlert(of({ when: { '<': 1 } }), [{ total: 'n/a' }], undefined).firing).to.equal(false);
  });

  it('"changes" fires only when the value differs from the last check\'s', () => {
    const changes = of({ when: 'changes' });
    expect(evaluateAlert(changes, rows, undefined)).to.deep.equal({ firing: false, value: '95' });
    expect(evaluateAlert(changes, rows, 95).firing).to.equal(false);
    expect(evaluateAlert(changes, rows, '94').firing).to.equal(true);
    expect(evaluateAlert(changes, [], '95').firing).to.equal(true);
  });

  it('moves states edge-triggered: a change on flipping only, states of removed alerts dropped', () => {
    const alerts = [of({ id: 'high' })];
    const at = (minute: number) => new Date(Date.UTC(2026, 10, 27, 8, minute));
    const run = (total: number, previous: AlertState[], minute: number) => nextAlertStates(alerts, { daily: [{ total }] }, previous, at(minute));
    const first = run(50, [], 0);
    expect(first.changed).to.deep.equal([]);
    expect(first.states).to.deep.equal([{ alertId: 'high', status: 'ok', value: 50, changedAt: at(0), checkedAt: at(0) }]);
    const fired = run(150, first.states, 1);
    expect(fired.changed).to.deep.equal([{ alertId: 'high', status: 'firing', value: 150, changedAt: at(1), checkedAt: at(1) }]);
    const still = run(160, fired.states, 2);
    expect(still.changed).to.deep.equal([]);
    expect(still.states[0]).to.include({ status: 'firing', value: 160 }).and.deep.include({ changedAt: at(1), checkedAt: at(2) });
    const cleared = run(10, still.states, 3);
    expect(cleared.changed.map((s) => s.status)).to.deep.equal(['ok']);
    expect(nextAlertStates([], {}, cleared.states, at(4))).to.deep.equal({ states: [], changed: [] });
    expect(run(150, [], 5).changed.map((s) => s.status)).to.deep.equal(['firing']);
  });
});
