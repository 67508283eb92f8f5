import { expect } from 'chai';
import { alertsSection } from '../../shells/koa/app/alerts-section.js';
import { alertLines, alertStatesJson } from '../../shells/presenters/alerts/alert-presenters.js';
import type { AlertView } from '../../application/alerts/alert-states.js';

const at = new Date('2026-11-27T08:15:00.000Z');
const firing: AlertView = { id: 'high', message: 'Sales <script>alert(1)</script> & more', status: 'firing', value: '150.5', changedAt: at, checkedAt: at };
const unchecked: AlertView = { id: 'low', message: 'Low', status: 'unchecked', value: null, changedAt: null, checkedAt: null };

describe('shells: alert states on the dashboard page and in get_dashboard', () => {
  it('draws nothing without alerts or a failure streak', () => {
    expect(alertsSection([], null)).to.equal(null);
  });

  it('shows each alert\'s state and last change, escaping the spec\'s message and the error', () => {
    const section = String(alertsSection([firing, unchecked], { since: at, failures: 3, lastError: 'query "q": <b>boom</b>' }));
    expect(section).to.include('<span class="badge bad">firing</span>').and.include('2026-11-27 08:15 UTC').and.include('150.5');
    expect(section).to.include('<span class="badge">not checked yet</span>');
    expect(section).to.include('Sales &lt;script&gt;alert(1)&lt;/script&gt; &amp; more').and.not.include('<script>');
    expect(section).to.include('3 runs in a row since 2026-11-27 08:15 UTC').and.include('&lt;b&gt;boom&lt;/b&gt;').and.not.include('<b>boom');
  });

  it('answers get_dashboard\'s alerts as JSON, with one sentence in the text', () => {
    const json = alertStatesJson([firing, unchecked]);
    expect(json).to.deep.equal([
      { id: 'high', state: 'firing', value: '150.5', message: firing.message, changed_at: '2026-11-27T08:15:00.000Z', checked_at: '2026-11-27T08:15:00.000Z' },
      { id: 'low', state: 'unchecked', value: null, message: 'Low', changed_at: null, checked_at: null },
    ]);
    expect(alertLines(json)).to.deep.equal(['Alerts: "high" firing since 2026-11-27T08:15:00.000Z (value 150.5); "low" not checked yet (checked after each refresh).']);
    expect(alertLines([])).to.deep.equal([]);
  });
});
