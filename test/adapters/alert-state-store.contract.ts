import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { AlertStateStore } from '../../application/ports/alert-state-store.js';
import type { DashboardStore } from '../../application/ports/dashboard-store.js';
import type { AlertState } from '../../domain/alerts.js';
import { aDashboard } from '../support/mothers.js';

export interface AlertStateStoreFixture {
  alerts: AlertStateStore;
  dashboards: DashboardStore;
}

/** What every AlertStateStore adapter must do: the same suite runs against memory and PostgreSQL. */
export function describeAlertStateStoreContract(name: string, make: () => Promise<AlertStateStoreFixture>) {
  describe(`adapter contract: AlertStateStore (${name})`, () => {
    let alerts: AlertStateStore;
    let dashboards: DashboardStore;
    const at = (minute: number) => new Date(Date.UTC(2026, 10, 27, 8, minute));
    before(async () => {
      ({ alerts, dashboards } = await make());
    });

    async function aStoredDashboard() {
      const owner = { kind: 'user' as const, id: randomUUID() };
      const record = aDashboard(owner);
      await dashboards.transaction(owner, (tx) => tx.insertDashboard(record));
      return record;
    }

    const state = (alertId: string, over: Partial<AlertState> = {}): AlertState => ({ alertId, status: 'ok', value: null, changedAt: at(0), checkedAt: at(1), ...over });

    it('answers no states for a dashboard never checked, and keeps every kind of cell value', async () => {
      const dashboard = await aStoredDashboard();
      expect(await alerts.states(dashboard.id)).to.deep.equal([]);
      const kept = [state('b-number', { status: 'firing', value: 150.5 }), state('a-text', { value: '95.00' }), state('c-bool', { value: true }), state('d-null')];
      await alerts.replaceStates(dashboard.id, kept);
      expect(await alerts.states(dashboard.id)).to.deep.equal([kept[1], kept[0], kept[2], kept[3]]);
    });

    it('replaces a dashboard\'s states as a whole, leaving other dashboards\' alone', async () => {
      const [one, two] = [await aStoredDashboard(), await aStoredDashboard()];
      await alerts.replaceStates(one.id, [state('x'), state('y')]);
      await alerts.replaceStates(two.id, [state('x', { status: 'firing', value: 3 })]);
      await alerts.replaceStates(one.id, [state('y', { status: 'firing', value: 'north', changedAt: at(5), checkedAt: at(5) })]);
      expect(await alerts.states(one.id)).to.deep.equal([state('y', { status: 'firing', value: 'north', changedAt: at(5), checkedAt: at(5) })]);
      expect(await alerts.states(two.id)).to.deep.equal([state('x', { status: 'firing', value: 3 })]);
      await alerts.replaceStates(one.id, []);
      expect(await alerts.states(one.id)).to.deep.equal([]);
    });

    it('keeps, updates and ends a failure streak per dashboard', async () => {
      const [one, two] = [await aStoredDashboard(), await aStoredDashboard()];
      expect(await alerts.failureStreak(one.id)).to.equal(null);
      await alerts.setFailureStreak(one.id, { since: at(0), failures: 1, lastError: 'query "q": boom' });
      await alerts.setFailureStreak(two.id, { since: at(2), failures: 1, lastError: 'other' });
      await alerts.setFailureStreak(one.id, { since: at(0), failures: 2, lastError: 'again' });
      expect(await alerts.failureStreak(one.id)).to.deep.equal({ since: at(0), failures: 2, lastError: 'again' });
      await alerts.setFailureStreak(one.id, null);
      expect(await alerts.failureStreak(one.id)).to.equal(null);
      expect(await alerts.failureStreak(two.id)).to.deep.equal({ since: at(2), failures: 1, lastError: 'other' });
    });
  });
}
