import type { ListedShareLink } from '../../../application/sharing/manage-share-links.js';
import { SHARE_LABEL_MAX_LENGTH, SHARE_LINKS_PER_DASHBOARD, SHARE_PASSWORD_MIN_LENGTH, type ShareLinkStatus } from '../../../domain/share-links.js';
import type { VersionJson } from '../../presenters/dashboards/dashboard-presenters.js';
import { html, type Html } from './html.js';
import { clipped, csrfField, fieldError, option, when, type DetailView, type Problem } from './dashboards-pages.js';

/**
 * The dashboard page's Share section: the dashboard's share links with their status, and plain forms to
 * create, pause, resume and revoke them. A new link's address is in the one answer that created it.
 */

/** The form's choices of expiry; a date typed beside them is used instead. */
export const SHARE_EXPIRY_CHOICES = [
  ['never', 'Never'],
  ['1d', 'In 1 day'],
  ['7d', 'In 7 days'],
  ['30d', 'In 30 days'],
] as const;

export interface ShareSectionInput {
  path: string;
  csrf: string;
  detail: DetailView;
  /** The dashboard's links, or null when the person may view the dashboard but not manage its sharing. */
  links: ListedShareLink[] | null;
  /** The link this answer created: its address is shown here and never again. */
  created?: { url: string; name: string };
  problem?: Problem;
  values: Record<string, string>;
}

const STATUS_BADGE: Record<ShareLinkStatus, string> = { active: 'ok', paused: 'paused', expired: 'bad' };

/** How a row's buttons name their link for screen readers: its label, else when it was made. */
export const shareLinkName = (link: { label: string | null; createdAt: Date }) => link.label ?? `made ${when(link.createdAt)}`;

export function shareSection(input: ShareSectionInput): Html {
  const heading = html`<h2 id="share">Share</h2>`;
  if (input.links === null) {
    return html`<section class="share" aria-labelledby="share">${heading}<p class="muted">Share links of this workspace's dashboards are managed by the workspace's admins.</p></section>`;
  }
  return html`<section class="share" aria-labelledby="share">${heading}${createdNotice(input.created)}
<p class="note">Anyone who has an active share link can view this dashboard without an account, even when it is private. A link can ask for a password, expire, and show one pinned version. Its address is shown once, when you create it.</p>
${linksTable(input)}<h3>New share link</h3>${createForm(input)}</section>`;
}

function createdNotice(created: ShareSectionInput['created']): Html | null {
  if (!created) return null;
  return html`<div class="created" role="status"><p><strong>Share link created</strong> (${created.name}).</p>
<label class="field" for="share-created-url">Copy this link now; it is not shown again</label>
<input id="share-created-url" type="text" readonly value="${created.url}" class="mono"></div>`;
}

function pinnedText(pinned: string | null, detail: DetailView): Html {
  if (pinned === null) return html`<span class="muted">follows the current version</span>`;
  if (pinned === detail.dashboard.current_version_id) return html`the current version`;
  const version = detail.versions.find((v) => v.version_id === pinned);
  return version ? html`version ${version.seq}${version.name ? html` (${clipped(version.name)})` : null}` : html`<span class="mono">${pinned.slice(0, 8)}</span>`;
}

function linksTable({ links, path, csrf, detail }: ShareSectionInput): Html {
  if (!links || links.length === 0) return html`<p class="muted">No share links yet.</p>`;
  const action = (id: string, verb: 'pause' | 'resume' | 'revoke', label: string, name: string) =>
    html`<form method="post" action="${path}/share/${id}/${verb}" class="inline">${csrfField(csrf)}<button type="submit"${verb === 'revoke' ? html` class="danger"` : null} aria-label="${label} share link ${name}">${label}</button></form>`;
  const row = ({ link, status }: ListedShareLink) => {
    const name = shareLinkName(link);
    const toggle = status === 'active' ? action(link.id, 'pause', 'Pause', name) : status === 'paused' ? action(link.id, 'resume', 'Resume', name) : null;
    return html`<tr><td class="name" data-label="Label">${link.label ? clipped(link.label) : html`<span class="muted">no label</span>`}<div class="note">made ${when(link.createdAt)}</div></td>
<td data-label="Status"><span class="badge ${STATUS_BADGE[status]}">${status}</span></td>
<td data-label="Password">${link.passwordHash === null ? 'no' : 'yes'}</td>
<td class="name" data-label="Shows">${pinnedText(link.pinnedVersionId, detail)}</td>
<td data-label="Expires">${link.expiresAt ? when(link.expiresAt) : html`<span class="muted">never</span>`}</td>
<td data-label="Views">${link.views}</td>
<td data-label="Last used">${link.lastUsedAt ? when(link.lastUsedAt) : html`<span class="muted">never</span>`}</td>
<td class="share-actions">${toggle} ${action(link.id, 'revoke', 'Revoke', name)}</td></tr>`;
  };
  return html`<div class="scroll"><table class="list"><caption class="visually-hidden">Share links of this dashboard, newest first</caption>
<thead><tr><th scope="col">Label</th><th scope="col">Status</th><th scope="col">Password</th><th scope="col">Shows</th><th scope="col">Expires</th><th scope="col">Views</th><th scope="col">Last used</th><th scope="col">Actions</th></tr></thead>
<tbody>${links.map(row)}</tbody></table></div>
<p class="note">Pausing stops the link until you resume it; revoking ends it for good, in every browser that opened it.</p>`;
}

function pinChoices(detail: DetailView, selected: string): Html[] {
  const earlier = (v: VersionJson) => option(v.version_id, `Version ${v.seq}${v.name ? ` “${v.name}”` : ''}, made ${when(v.created_at)}`, selected);
  return [
    option('', 'Follow the current version', selected),
    option(detail.dashboard.current_version_id, 'Pin the current version as it is now', selected),
    ...detail.versions.map(earlier),
  ];
}

function createForm({ path, csrf, detail, problem, values, links }: ShareSectionInput): Html {
  const err = (name: string) => fieldError(problem, 'share', name);
  const [label, expiresOn, password, pin] = [err('label'), err('expires_on'), err('password'), err('pin')];
  const expires = values.expires ?? 'never';
  const full = (links?.length ?? 0) >= SHARE_LINKS_PER_DASHBOARD;
  return html`<form method="post" action="${path}/share#share">${csrfField(csrf)}${fieldError(problem, 'share', '').note}
<div class="grid2"><div class="stack"><label for="share-label">Label (optional)</label><input id="share-label" name="label" type="text" maxlength="${SHARE_LABEL_MAX_LENGTH}" autocomplete="off" value="${values.label ?? ''}" aria-describedby="share-label-help"${label.attrs}><p class="note" id="share-label-help">Whom the link is for, such as "Board, Q3".</p>${label.note}</div>
<div class="stack"><label for="share-pin">Shows</label><select id="share-pin" name="pin"${pin.attrs}>${pinChoices(detail, values.pin ?? '')}</select>${pin.note}</div></div>
<div class="grid2"><div class="stack"><label for="share-expires">Expires</label><select id="share-expires" name="expires">${SHARE_EXPIRY_CHOICES.map(([value, text]) => option(value, text, expires))}</select></div>
<div class="stack"><label for="share-expires-on">Or on a date (optional)</label><input id="share-expires-on" name="expires_on" type="date" value="${values.expires_on ?? ''}" aria-describedby="share-expires-on-help"${expiresOn.attrs}><p class="note" id="share-expires-on-help">Used instead of the choice beside it; the link works until the end of that day (UTC).</p>${expiresOn.note}</div></div>
<div class="stack"><label for="share-password">Password (optional)</label><input id="share-password" name="password" type="password" autocomplete="new-password" aria-describedby="share-password-help"${password.attrs}><p class="note" id="share-password-help">At least ${SHARE_PASSWORD_MIN_LENGTH} characters. Viewers type it once per browser; leave it empty for a link without one.</p>${password.note}</div>
<div class="actions">${full ? html`<p class="note">This dashboard has ${SHARE_LINKS_PER_DASHBOARD} share links, the most it can have. Revoke one first.</p>` : null}<button class="primary" type="submit">Create share link</button></div></form>`;
}
