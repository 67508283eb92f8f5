import type { AlertView } from '../../../application/alerts/alert-states.js';
import type { FailureStreak } from '../../../application/ports/alert-state-store.js';
import { alertValueText } from '../../presenters/alerts/alert-presenters.js';
import { html, type Html } from './html.js';

const stamp = (date: Date) => date.toISOString().slice(0, 16).replace('T', ' ') + ' UTC';

/**
 * The dashboard page's alert states and refresh failure streak: what the owner was told by email (when
 * email is on), shown here either way. Nothing when the spec declares no alert and refreshes work.
 */
export function alertsSection(alerts: AlertView[], streak: FailureStreak | null): Html | null {
  if (alerts.length === 0 && streak === null) return null;
  const failing = streak
    ? html`<p class="error" role="alert" id="refresh-failing"><strong>Refreshes are failing</strong>: ${streak.failures} run${streak.failures === 1 ? '' : 's'} in a row since ${stamp(streak.since)}; the page shows the last good render. Last error: ${streak.lastError}</p>`
    : null;
  return html`<section class="alerts" aria-labelledby="alerts"><h2 id="alerts">Alerts</h2>${failing}${alerts.length ? alertsTable(alerts) : null}</section>`;
}

function alertsTable(alerts: AlertView[]): Html {
  const badge = (a: AlertView) =>
    a.status === 'firing' ? html`<span class="badge bad">firing</span>` : a.status === 'ok' ? html`<span class="badge ok">ok</span>` : html`<span class="badge">not checked yet</span>`;
  const row = (a: AlertView) =>
    html`<tr><td class="mono" data-label="Alert">${a.id}</td><td class="name" data-label="Message">${a.message}</td><td data-label="State">${badge(a)}</td><td data-label="Value">${a.checkedAt ? alertValueText(a.value) : '—'}</td><td data-label="Since">${a.changedAt ? stamp(a.changedAt) : '—'}</td></tr>`;
  return html`<p class="note">Checked after each refresh; subscribers of this dashboard are told when an alert fires and when it clears.</p>
<div class="scroll"><table class="list"><caption class="visually-hidden">Alerts of this dashboard and their states</caption><thead><tr><th scope="col">Alert</th><th scope="col">Message</th><th scope="col">State</th><th scope="col">Value</th><th scope="col">Since</th></tr></thead>
<tbody>${alerts.map(row)}</tbody></table></div>`;
}
