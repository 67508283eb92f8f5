import type { ListedSubscription } from '../../../application/delivery/manage-subscriptions.js';
import { PAUSE_AFTER_FAILURES, SUBSCRIPTIONS_PER_DASHBOARD, type Subscription } from '../../../domain/subscriptions.js';
import { html, type Html } from './html.js';
import { clipped, csrfField, fieldError, option, when, type Problem } from './dashboards-pages.js';

/**
 * The dashboard page's Deliver section: the dashboard's subscriptions with their last delivery and
 * failure, and plain forms to add, test-send and remove them. A webhook's signing secret is in the one
 * answer that added it.
 */

export interface DeliverSectionInput {
  path: string;
  csrf: string;
  /** The dashboard's subscriptions, or null when the person may view the dashboard but not manage its delivery. */
  subscriptions: ListedSubscription[] | null;
  emailEnabled: boolean;
  visibility: string;
  /** The webhook this answer added: its secret is shown here and never again. */
  created?: { secret: string; target: string };
  problem?: Problem;
  values: Record<string, string>;
}

type Field = ReturnType<typeof fieldError>;

const CHANNEL_TEXT = { email: 'Email', slack: 'Slack', webhook: 'Webhook' } as const;

export function deliverSection(input: DeliverSectionInput): Html {
  const heading = html`<h2 id="deliver">Deliver</h2>`;
  if (input.subscriptions === null) {
    return html`<section class="deliver" aria-labelledby="deliver">${heading}<p class="muted">Deliveries of this workspace's dashboards are managed by the workspace's admins.</p></section>`;
  }
  const off = input.emailEnabled ? null : html`<p class="note"><strong>Email delivery is off</strong>: the operator has not set SMTP_URL and MAIL_FROM. Slack and webhooks work.</p>`;
  const rule = input.visibility === 'private' ? html` This dashboard is private: email goes only to its owner's or its workspace members' addresses.` : null;
  return html`<section class="deliver" aria-labelledby="deliver">${heading}${off}${createdNotice(input.created)}
<p class="note">Send this dashboard's picture, link and last refresh time by email, to Slack or to a signed webhook, after each scheduled refresh or on a schedule of its own.${rule} After ${PAUSE_AFTER_FAILURES} failures in a row a subscription is paused.</p>
${subscriptionsTable(input)}<h3>New subscription</h3>${addForm(input)}</section>`;
}

function createdNotice(created: DeliverSectionInput['created']): Html | null {
  if (!created) return null;
  return html`<div class="created" role="status"><p><strong>Webhook added</strong> (${created.target}).</p>
<label class="field" for="deliver-secret">Its signing secret; copy it now, it is not shown again</label>
<input id="deliver-secret" type="text" readonly value="${created.secret}" class="mono"></div>`;
}

function health(s: Subscription): Html {
  const last = s.lastDeliveredAt ? html`sent ${when(s.lastDeliveredAt)}` : html`<span class="muted">not sent yet</span>`;
  if (s.lastError === null) return last;
  const failures = s.consecutiveFailures > 0 ? `${s.consecutiveFailures} failure${s.consecutiveFailures === 1 ? '' : 's'} in a row; ` : '';
  return html`${last}<div class="field-error">${failures}last error ${s.lastFailureAt ? when(s.lastFailureAt) : ''}: ${clipped(s.lastError)}</div>`;
}

function subscriptionsTable({ subscriptions, path, csrf }: DeliverSectionInput): Html {
  if (!subscriptions || subscriptions.length === 0) return html`<p class="muted">No subscriptions yet.</p>`;
  const action = (id: string, verb: 'test' | 'remove', label: string, name: string) =>
    html`<form method="post" action="${path}/deliver/${id}/${verb}" class="inline">${csrfField(csrf)}<button type="submit"${verb === 'remove' ? html` class="danger"` : null} aria-label="${label} subscription ${name}">${label}</button></form>`;
  const row = ({ subscription: s }: ListedSubscription) => {
    const name = `${CHANNEL_TEXT[s.channel]} ${s.shownTarget}`;
    const status = s.paused ? html`<span class="badge bad">paused</span>` : html`<span class="badge ok">active</span>`;
    return html`<tr><td data-label="Sends to">${CHANNEL_TEXT[s.channel]} <span class="mono">${clipped(s.shownTarget)}</span></td>
<td data-label="Link">${s.viaShareLink ? 'a share link' : 'its address'}</td><td data-label="When">${s.cron === null ? 'after each scheduled refresh' : html`<span class="mono">${s.cron}</span> (${s.timezone})`}</td>
<td data-label="Status">${status}</td><td class="name" data-label="Last delivery">${health(s)}</td>
<td class="share-actions">${action(s.id, 'test', s.paused ? 'Send now and resume' : 'Send now', name)} ${action(s.id, 'remove', 'Remove', name)}</td></tr>`;
  };
  return html`<div class="scroll"><table class="list"><caption class="visually-hidden">Subscriptions of this dashboard, oldest first</caption>
<thead><tr><th scope="col">Sends to</th><th scope="col">Link</th><th scope="col">When</th><th scope="col">Status</th><th scope="col">Last delivery</th><th scope="col">Actions</th></tr></thead>
<tbody>${subscriptions.map(row)}</tbody></table></div>`;
}

function addForm({ path, csrf, problem, values, subscriptions, emailEnabled }: DeliverSectionInput): Html {
  const [target, cron, zone, share] = ['target', 'cron', 'timezone', 'share_link'].map((name) => fieldError(problem, 'deliver', name)) as [Field, Field, Field, Field];
  const channel = values.channel ?? (emailEnabled ? 'email' : 'webhook');
  const full = (subscriptions?.length ?? 0) >= SUBSCRIPTIONS_PER_DASHBOARD;
  return html`<form method="post" action="${path}/deliver#deliver">${csrfField(csrf)}${fieldError(problem, 'deliver', '').note}
<div class="grid2"><div class="stack"><label for="deliver-channel">Send by</label><select id="deliver-channel" name="channel">${option('email', emailEnabled ? 'Email' : 'Email (off on this service)', channel)}${option('slack', 'Slack incoming webhook', channel)}${option('webhook', 'Webhook (signed JSON)', channel)}</select></div>
<div class="stack"><label for="deliver-target">Address or webhook URL</label><input id="deliver-target" name="target" type="text" required autocomplete="off" value="${values.target ?? ''}"${target.attrs}>${target.note}</div></div>
<div class="grid2"><div class="stack"><label for="deliver-cron">Schedule (optional)</label><input id="deliver-cron" name="cron" type="text" class="mono" placeholder="0 8 * * 1" value="${values.cron ?? ''}" aria-describedby="deliver-cron-help"${cron.attrs}><p class="note" id="deliver-cron-help">Five cron fields, such as 0 8 * * 1 for Mondays at 8:00; empty sends after each scheduled refresh.</p>${cron.note}</div>
<div class="stack"><label for="deliver-timezone">Zone (IANA, default UTC)</label><input id="deliver-timezone" name="timezone" type="text" placeholder="UTC" value="${values.timezone ?? ''}"${zone.attrs}>${zone.note}</div></div>
<div class="stack"><label for="deliver-share-link">Send a share link instead (optional)</label><input id="deliver-share-link" name="share_link" type="text" autocomplete="off" class="mono" value="${values.share_link ?? ''}" aria-describedby="deliver-share-link-help"${share.attrs}><p class="note" id="deliver-share-link-help">Paste a share link of this dashboard, as shown when you made it: recipients open the dashboard through it, without an account. Empty sends the dashboard's own address.</p>${share.note}</div>
<div class="actions">${full ? html`<p class="note">This dashboard has ${SUBSCRIPTIONS_PER_DASHBOARD} subscriptions, the most it can have. Remove one first.</p>` : null}<button class="primary" type="submit">Add subscription</button></div></form>`;
}
