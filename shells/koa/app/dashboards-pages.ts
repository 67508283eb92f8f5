import type { DashboardDetail, OwnerChoice, OwnerPage } from '../../../application/dashboards/owner-dashboards.js';
import type { UrlSettings } from '../../../domain/urls.js';
import { dashboardJson, dashboardUrl, versionJson, type DashboardJson, type VersionJson } from '../../presenters/dashboards/dashboard-presenters.js';
import type { EmbedOnce } from './embed-section.js';
import { html, layout, type Html } from './html.js';
import { viewsChart } from './views-chart.js';
import { alertsSection } from './alerts-section.js';

/**
 * The dashboards pages (`/dashboards`, `/dashboards/<owner>/<slug>` and its steps). Plain forms and
 * links, no script; every POST carries the CSRF token; a refusal is shown next to the field it is about.
 */

export const DASHBOARDS_PATH = '/dashboards';

export interface Chrome {
  /** The product's name on every page (SERVICE_DISPLAY_NAME). */
  displayName: string;
  csrf: string;
}

/** Where a refusal goes on the dashboard page: a form, and the field in it when there is one. */
export interface Problem {
  form: string;
  field?: string;
  message: string;
}

export const csrfField = (csrf: string) => html`<input type="hidden" name="csrf" value="${csrf}">`;
const enc = encodeURIComponent;
export const dashboardPath = (owner: string, slug: string) => `${DASHBOARDS_PATH}/${enc(owner)}/${enc(slug)}`;
export const ownerListPath = (owner: string) => `${DASHBOARDS_PATH}?owner=${enc(owner)}`;
/** The dashboard's image on the app's origin (thumbnail-routes.ts); `?theme=dark` for the dark one. */
export const thumbnailPath = (owner: string, slug: string, theme: 'light' | 'dark' = 'light') =>
  `${dashboardPath(owner, slug)}/thumbnail.png${theme === 'dark' ? '?theme=dark' : ''}`;

/** The dashboard's image, lazy-loaded, in the app's colour scheme, with its name as the alt text. */
export const thumbnail = (owner: string, slug: string, name: string, className: string) =>
  html`<picture class="${className}"><source media="(prefers-color-scheme: dark)" srcset="${thumbnailPath(owner, slug, 'dark')}"><img src="${thumbnailPath(owner, slug)}" alt="${name}" loading="lazy" decoding="async"></picture>`;

/** A user-chosen value cut to one line with an ellipsis; the whole text stays in its title. */
export const clipped = (text: string, extraClass = '') => html`<span class="clip${extraClass}" title="${text}">${text}</span>`;
const tagBadges = (tags: string[]) => tags.map((t) => html`${clipped(t, ' badge tag')} `);

export const when = (date: Date | string) => new Date(date).toISOString().slice(0, 16).replace('T', ' ') + ' UTC';

function topNav(current: 'dashboards' | 'account'): Html {
  const mark = (page: string) => (page === current ? html` aria-current="page"` : null);
  return html`<nav class="top" aria-label="Main"><a href="/account"${mark('account')}>Account</a><a href="${DASHBOARDS_PATH}"${mark('dashboards')}>Dashboards</a><a href="/connections">Connections</a><a href="/connect">Connect a client</a></nav>`;
}

/** An inline refusal under a field; the field points at it with aria-describedby. */
export function fieldError(problem: Problem | undefined, form: string, field: string): { attrs: Html | null; note: Html | null } {
  if (!problem || problem.form !== form || (problem.field ?? '') !== field) return { attrs: null, note: null };
  const id = `${form}-${field || 'form'}-error`.replace(/[^a-z0-9_-]/gi, '-');
  return { attrs: html` aria-invalid="true" aria-describedby="${id}"`, note: html`<p class="field-error" id="${id}" role="alert">${problem.message}</p>` };
}

const formError = (problem: Problem | undefined, form: string) => fieldError(problem, form, '').note;

function ownerSwitcher(owners: OwnerChoice[], current: string): Html {
  return html`<nav aria-label="Owner"><ul class="owners">${owners.map(
    (o) => html`<li><a href="${ownerListPath(o.name)}"${o.name === current ? html` aria-current="page"` : null}>${o.kind === 'personal' ? `@${o.name}` : o.label}</a></li>`,
  )}</ul></nav>`;
}

export const option = (value: string, label: string, selected: string | undefined) =>
  html`<option value="${value}"${value === (selected ?? '') ? html` selected` : null}>${label}</option>`;

function runBadge(run: { outcome: string; startedAt: Date } | null): Html {
  if (!run) return html`<span class="muted">—</span>`;
  return html`<span class="badge ${run.outcome === 'success' ? 'ok' : 'bad'}">${run.outcome}</span> <span class="note">${when(run.startedAt)}</span>`;
}

/** The choices of a select, with the current value kept among them even when the list does not hold it. */
const withChoice = (choices: string[], current: string) => (current && !choices.includes(current) ? [current, ...choices] : choices);
const tagChoices = withChoice;

export function listPage(
  chrome: Chrome,
  page: OwnerPage,
  input: { search: string; tag: string; visibility: string; kind: string; cursor: string; notice?: string; error?: string },
): string {
  const { owner } = page;
  const query = (extra: Record<string, string>) => {
    const params = new URLSearchParams({ owner: owner.name });
    for (const [key, value] of Object.entries({ q: input.search, tag: input.tag, visibility: input.visibility, kind: input.kind, ...extra })) if (value) params.set(key, value);
    return `${DASHBOARDS_PATH}?${params}`;
  };
  const filtered = Boolean(input.search || input.tag || input.visibility || input.kind);
  const rows = page.rows.map(
    (r) => html`<tr><td class="name">${thumbnail(owner.name, r.slug, r.name, 'thumb')}<a href="${dashboardPath(owner.name, r.slug)}">${clipped(r.name)}</a><div class="note mono">${r.slug}</div></td>
<td class="tags" data-label="Tags">${r.tags.length ? tagBadges(r.tags) : html`<span class="muted">—</span>`}</td>
<td data-label="Visibility">${r.visibility}</td><td data-label="Kind">${r.kind}</td><td data-label="Last published">${when(r.publishedAt)}</td>
<td class="run" data-label="Last refresh">${r.kind === 'refreshable' ? runBadge(r.lastRun) : html`<span class="muted">—</span>`}</td><td data-label="Views (30 days)">${r.views}</td></tr>`,
  );
  const table = page.rows.length
    ? html`<div class="scroll"><table class="list"><caption class="visually-hidden">Dashboards of ${owner.kind === 'personal' ? `@${owner.name}` : owner.label}</caption>
<thead><tr><th scope="col">Name</th><th scope="col">Tags</th><th scope="col">Visibility</th><th scope="col">Kind</th><th scope="col">Last published</th><th scope="col">Last refresh</th><th scope="col">Views (30 days)</th></tr></thead>
<tbody>${rows}</tbody></table></div>`
    : html`<p class="muted spaced">${filtered ? 'No dashboard matches these filters.' : input.cursor ? 'No more dashboards.' : 'No dashboards yet. Ask your AI assistant to publish one.'}</p>`;
  const pager = html`<div class="pager">${input.cursor ? html`<a href="${query({})}">First page</a>` : html`<span></span>`}${page.nextCursor ? html`<a href="${query({ cursor: page.nextCursor })}" rel="next">Next page</a>` : null}</div>`;
  const body = html`${topNav('dashboards')}<h1>Dashboards</h1>
<p class="muted">${owner.kind === 'personal' ? 'Your personal account' : `Workspace ${owner.label}`} · <span class="mono">${owner.name}</span></p>
${ownerSwitcher(page.owners, owner.name)}
${input.notice ? html`<p class="notice" role="status">${input.notice}</p>` : null}${input.error ? html`<div class="error" role="alert">${input.error}</div>` : null}
<form method="get" action="${DASHBOARDS_PATH}" class="filters" role="search" aria-label="Filter dashboards"><input type="hidden" name="owner" value="${owner.name}">
<div class="wide-field"><label for="q">Search name or slug</label><input id="q" name="q" type="search" value="${input.search}"></div>
<div><label for="tag">Tag</label><select id="tag" name="tag">${option('', 'Any tag', input.tag)}${tagChoices(page.tags, input.tag).map((t) => option(t, t, input.tag))}</select></div>
<div><label for="visibility">Visibility</label><select id="visibility" name="visibility">${option('', 'Any', input.visibility)}${option('public', 'Public', input.visibility)}${option('private', 'Private', input.visibility)}</select></div>
<div><label for="kind">Kind</label><select id="kind" name="kind">${option('', 'Any', input.kind)}${option('static', 'Static', input.kind)}${option('refreshable', 'Refreshable', input.kind)}</select></div>
<div><button type="submit">Filter</button></div></form>
${table}${pager}`;
  return layout({ title: 'Dashboards', displayName: chrome.displayName, body, full: true });
}

const bytes = (n: number) => (n < 1024 ? `${n} B` : n < 1_048_576 ? `${(n / 1024).toFixed(1)} KiB` : `${(n / 1_048_576).toFixed(1)} MiB`);

function zoned(date: Date, timeZone: string): string {
  const text = new Intl.DateTimeFormat('en-GB', { timeZone, weekday: 'short', year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' }).format(date);
  return `${text} (${timeZone})`;
}

const TIME_ZONES = ['UTC', ...Intl.supportedValuesOf('timeZone').filter((z) => z !== 'UTC')];

/**
 * The dashboard page's data: the use case's detail, with the dashboard, its versions and old addresses
 * presented as the dashboard tools answer them (shells/presenters/dashboards/dashboard-presenters.ts).
 */
export interface DetailView extends Omit<DashboardDetail, 'dashboard' | 'versions' | 'aliases'> {
  dashboard: DashboardJson;
  versions: VersionJson[];
  aliases: Array<{ slug: string; url: string }>;
}

export function detailView(urls: UrlSettings, detail: DashboardDetail): DetailView {
  return {
    ...detail,
    dashboard: dashboardJson(urls, detail.target, detail.dashboard, detail.current),
    versions: detail.versions.map((v) => versionJson(v, detail.dashboard.currentVersionId)),
    aliases: detail.aliases.map((a) => ({ slug: a.slug, url: dashboardUrl(urls, detail.target, a.slug) })),
  };
}

export interface DetailInput {
  notice?: string;
  problem?: Problem;
  /** What the person typed, shown again beside a refusal. */
  values?: Record<string, string>;
  /** The Share section (share-section.ts), drawn by the route with the links it may show. */
  share?: Html;
  /** A new embed secret or a test URL, shown on this answer only. */
  embed?: EmbedOnce;
  /** The embed settings (shells/koa/app/embed-section.ts), for a person who manages the dashboard's sharing. */
  embedSection?: Html | null;
  /** The Deliver section (deliver-section.ts), drawn by the route with the subscriptions it may show. */
  deliver?: Html;
}

export function detailPage(chrome: Chrome, detail: DetailView, input: DetailInput = {}): string {
  const { dashboard: d, owner } = detail;
  const path = dashboardPath(owner.name, d.slug);
  const csrf = csrfField(chrome.csrf);
  const values = input.values ?? {};
  const problem = input.problem;
  const ownerText = owner.kind === 'personal' ? `@${owner.name}` : owner.label;

  const aliases = detail.aliases.length
    ? html`<ul>${detail.aliases.map((a) => html`<li><code>${a.url}</code></li>`)}</ul><p class="note">These old addresses redirect (301) here.</p>`
    : html`<span class="muted">none</span>`;
  const meta = html`<dl>
<div><dt>URL</dt><dd><a class="mono" href="${d.url}">${d.url}</a></dd></div>
<div><dt>Old URLs</dt><dd>${aliases}</dd></div>
<div><dt>Owner</dt><dd>${ownerText}</dd></div>
<div><dt>Visibility</dt><dd>${d.visibility === 'public' ? 'Public: anyone with the link' : 'Private: members only, after sign-in'}</dd></div>
<div><dt>Kind</dt><dd>${d.refreshable ? `Refreshable, on ${d.connection === 'self' ? 'self' : `connection ${d.connection}`}` : 'Static'}</dd></div>
<div><dt>Tags</dt><dd>${d.tags.length ? tagBadges(d.tags) : html`<span class="muted">none</span>`}</dd></div>
<div><dt>Published</dt><dd>${when(detail.publishedAt)} <span class="note">created ${when(d.created_at)}, settings changed ${when(d.updated_at)}</span></dd></div>
</dl>`;

  const preview =
    d.visibility === 'public'
      ? html`<iframe class="preview" src="${d.url}" title="Live preview of ${d.name}" sandbox="allow-scripts allow-same-origin allow-popups" loading="lazy" referrerpolicy="no-referrer"></iframe>`
      : html`<p class="muted">Private dashboards are not framed here. <a href="${d.url}">Open ${d.slug}</a> (you sign in on the dashboards host as a member).</p>`;

  const nameErr = fieldError(problem, 'metadata', 'name');
  const tagsErr = fieldError(problem, 'metadata', 'tags');
  const visErr = fieldError(problem, 'metadata', 'visibility');
  const visibility = values.visibility ?? d.visibility;
  const settings = html`<form method="post" action="${path}/settings">${csrf}${formError(problem, 'metadata')}
<div class="grid2"><div class="stack"><label for="name">Name</label><input id="name" name="name" type="text" required value="${values.name ?? d.name}"${nameErr.attrs}>${nameErr.note}</div>
<div class="stack"><label for="visibility">Visibility</label><select id="visibility" name="visibility"${visErr.attrs}>${option('public', 'Public', visibility)}${option('private', 'Private', visibility)}</select>${visErr.note}</div></div>
<div class="stack"><label for="tags">Tags</label><input id="tags" name="tags" type="text" value="${values.tags ?? d.tags.join(', ')}" aria-describedby="tags-help"${tagsErr.attrs}><p class="note" id="tags-help">Separated by commas; leave empty to clear.</p>${tagsErr.note}</div>
<div class="actions"><button class="primary" type="submit">Save changes</button></div></form>`;

  const slugErr = fieldError(problem, 'rename', 'new_slug');
  const rename = html`<form method="post" action="${path}/rename">${csrf}
<div class="row-form"><div class="stack"><label for="new_slug">New slug</label><input id="new_slug" name="new_slug" type="text" required pattern="[a-z0-9-]{1,64}" value="${values.new_slug ?? ''}" aria-describedby="rename-help"${slugErr.attrs}></div><button type="submit">Rename dashboard</button></div>${slugErr.note}
<p class="note" id="rename-help">The current address <code>${d.url}</code> will keep working: it redirects (301) to the new one.</p></form>`;

  const body = html`${topNav('dashboards')}<a class="back" href="${ownerListPath(owner.name)}">Dashboards of ${ownerText}</a>
<h1>${d.name}</h1><p class="muted mono">${d.slug}</p>
${input.notice ? html`<p class="notice" role="status">${input.notice}</p>` : null}${problem?.form === 'page' ? html`<div class="error" role="alert">${problem.message}</div>` : null}
${meta}
<h2>Preview</h2>${thumbnail(owner.name, d.slug, d.name, 'image')}${preview}
<h2>Views</h2>${viewsChart(detail.dailyViews)}
${d.refreshable ? refreshSection(detail, path, csrf, problem, values) : null}${alertsSection(detail.alerts, detail.failureStreak)}
<h2>Versions</h2>${versionsSection(detail, path, csrf, problem)}
${input.share ?? null}
${input.embedSection ?? null}
${input.deliver ?? null}
<h2>Files</h2>${filesTable(d.files)}
<h2>Name, tags and visibility</h2>${settings}
<h2>Rename</h2>${rename}
<h2>Delete</h2><p class="muted">Removes the dashboard with all its versions and old addresses.</p><p><a href="${path}/delete">Delete ${d.slug}…</a></p>`;
  // While a refresh is queued or running, the page reloads itself (without the notice) until the run is listed.
  const reload = d.refreshable && detail.refresh.pending ? { seconds: PENDING_RELOAD_SECONDS, url: path } : undefined;
  return layout({ title: d.name, displayName: chrome.displayName, body, full: true, reload });
}

const PENDING_RELOAD_SECONDS = 3;

function refreshSection(detail: DetailView, path: string, csrf: Html, problem: Problem | undefined, values: Record<string, string>): Html {
  const r = detail.refresh;
  const schedule = r.schedule
    ? html`<p>Runs on <code>${r.schedule}</code> in ${r.timezone}. Next runs:</p><ul>${r.nextRuns.map((at) => html`<li>${zoned(at, r.timezone ?? 'UTC')}</li>`)}</ul>`
    : html`<p class="muted">No schedule: it refreshes only on demand.</p>`;
  const cronErr = fieldError(problem, 'schedule', 'schedule');
  const zoneErr = fieldError(problem, 'schedule', 'timezone');
  const zone = values.timezone ?? r.timezone ?? 'UTC';
  const scheduleForm = html`<form method="post" action="${path}/schedule">${csrf}
<div class="grid2"><div class="stack"><label for="schedule">Schedule (cron, 5 fields)</label><input id="schedule" name="schedule" type="text" value="${values.schedule ?? r.schedule ?? ''}" aria-describedby="schedule-help"${cronErr.attrs}><p class="note" id="schedule-help">For example <code>0 * * * *</code> (hourly); empty to clear.</p>${cronErr.note}</div>
<div class="stack"><label for="timezone">Time zone</label><select id="timezone" name="timezone"${zoneErr.attrs}>${withChoice(TIME_ZONES, zone).map((z) => option(z, z, zone))}</select>${zoneErr.note}</div></div>
<div class="actions"><button type="submit">Save schedule</button></div></form>`;
  const trigger = detail.refreshRefusal
    ? html`<p class="note">${detail.refreshRefusal}</p>`
    : html`<form method="post" action="${path}/refresh">${csrf}<button class="primary" type="submit">Refresh now</button></form>${formError(problem, 'refresh')}`;
  const runs = detail.runs.length
    ? html`<div class="scroll"><table class="list"><caption class="visually-hidden">Last refresh runs</caption><thead><tr><th scope="col">Started</th><th scope="col">Trigger</th><th scope="col">Outcome</th><th scope="col">Duration</th><th scope="col">Rows</th><th scope="col">Error</th></tr></thead><tbody>${detail.runs.map(
        (run) => html`<tr><td data-label="Started">${when(run.startedAt)}</td><td data-label="Trigger">${run.trigger}</td><td data-label="Outcome"><span class="badge ${run.outcome === 'success' ? 'ok' : 'bad'}">${run.outcome}</span></td><td data-label="Duration">${run.durationMs} ms</td><td data-label="Rows">${run.rows}</td><td class="name" data-label="Error">${run.error ?? '—'}</td></tr>`,
      )}</tbody></table></div>`
    : html`<p class="muted">No refresh has run yet.</p>`;
  const warnings = r.warnings.map((w) => html`<p class="warn">${w}</p>`);
  const pending =
    r.pending === 'running'
      ? html`<p class="notice" role="status" id="refresh-pending">Refreshing… This page reloads until the run is listed.</p>`
      : r.pending === 'queued'
        ? html`<p class="notice" role="status" id="refresh-pending">A refresh is queued… This page reloads until the run is listed.</p>`
        : null;
  return html`<h2 id="refresh">Refresh</h2>${warnings}${schedule}${scheduleForm}<h3>Run now</h3>${trigger}<h3>Last runs</h3>${pending}${runs}`;
}

function versionsSection(detail: DetailView, path: string, csrf: Html, problem: Problem | undefined): Html {
  const d = detail.dashboard;
  const current = html`<p>Current version <span class="note mono">${d.current_version_id}</span> · <a href="${path}/versions/${d.current_version_id}">Preview the current version</a></p>`;
  if (detail.versions.length === 0) return html`${current}<p class="muted">No earlier versions yet: each publish or restore keeps the one it replaces.</p>`;
  const row = (v: VersionJson) => {
    const form = `version-${v.version_id}`;
    const nameErr = fieldError(problem, form, 'name');
    const inputId = `vname-${v.seq}`;
    return html`<tr><td data-label="Version">${v.seq}</td><td data-label="Made">${when(v.created_at)}</td><td data-label="Kind">${v.kind}</td><td data-label="Name">${v.name ? html`<strong>${v.name}</strong>` : html`<span class="muted">automatic</span>`}</td>
<td><a href="${path}/versions/${v.version_id}" aria-label="Preview version ${v.seq}">Preview</a></td>
<td><form method="post" action="${path}/versions/${v.version_id}/name" class="row-form">${csrf}<label class="visually-hidden" for="${inputId}">Name for version ${v.seq}</label><input id="${inputId}" name="name" type="text" value="${v.name ?? ''}" placeholder="Name"${nameErr.attrs}><button type="submit" aria-label="Save name of version ${v.seq}">Save name</button></form>
${v.name ? html`<form method="post" action="${path}/versions/${v.version_id}/name" class="inline">${csrf}<input type="hidden" name="name" value=""><button class="link" type="submit">Unname version ${v.seq}</button></form>` : null}${nameErr.note}</td>
<td><form method="post" action="${path}/versions/${v.version_id}/restore" class="inline">${csrf}<button type="submit" aria-label="Restore version ${v.seq}">Restore</button></form>${formError(problem, form)}</td></tr>`;
  };
  return html`${current}<p class="note">Named versions are kept; the oldest automatic ones beyond 20 are pruned. Restoring makes a copy the new current version.</p>
<div class="scroll"><table class="list"><caption class="visually-hidden">Earlier versions, newest first</caption><thead><tr><th scope="col">#</th><th scope="col">Made</th><th scope="col">Kind</th><th scope="col">Name</th><th scope="col">Preview</th><th scope="col">Name it</th><th scope="col">Restore</th></tr></thead>
<tbody>${detail.versions.map(row)}</tbody></table></div>`;
}

function filesTable(files: DashboardJson['files']): Html {
  return html`<div class="scroll"><table><caption class="visually-hidden">Files of the current version</caption><thead><tr><th scope="col">File</th><th scope="col">Size</th><th scope="col">Type</th></tr></thead><tbody>${files.map(
    (f) => html`<tr><td><a class="mono" href="${f.url}">${f.filename}</a></td><td>${bytes(f.size)}</td><td>${f.content_type}</td></tr>`,
  )}</tbody></table></div>`;
}

export function versionPage(
  chrome: Chrome,
  input: { owner: OwnerChoice; name: string; slug: string; version: VersionJson; filename: string; current: boolean; problem?: Problem },
): string {
  const path = dashboardPath(input.owner.name, input.slug);
  const v = input.version;
  const fileUrl = (filename: string) => `${path}/versions/${v.version_id}/files/${enc(filename)}`;
  const restore = input.current
    ? html`<p class="muted">This is the current version.</p>`
    : html`<form method="post" action="${path}/versions/${v.version_id}/restore">${csrfField(chrome.csrf)}<button class="primary" type="submit">Restore this version</button></form>${formError(input.problem, `version-${v.version_id}`)}`;
  const body = html`${topNav('dashboards')}<a class="back" href="${path}">Back to ${clipped(input.name)}</a>
<h1>Version ${v.seq} of ${input.name}</h1>
<dl><div><dt>Made</dt><dd>${when(v.created_at)}</dd></div><div><dt>Name</dt><dd>${v.name ?? 'automatic (unnamed)'}</dd></div>
<div><dt>Id</dt><dd class="mono">${v.version_id}</dd></div>
<div><dt>Files</dt><dd>${v.files.map((f) => html`<a class="mono" href="${fileUrl(f.filename)}">${f.filename}</a> <span class="note">${bytes(f.size)}</span><br>`)}</dd></div></dl>
<h2>Preview</h2><iframe class="preview" src="${fileUrl(input.filename)}" title="Preview of version ${v.seq}: ${input.filename}" sandbox="allow-scripts"></iframe>
<h2>Restore</h2>${restore}`;
  return layout({ title: `Version ${v.seq} of ${input.name}`, displayName: chrome.displayName, body, full: true });
}

/** What a delete takes besides the dashboard, read naturally for none, one and many earlier versions. */
const earlierVersions = (n: number) =>
  n === 0 ? 'its files and its old addresses; it has no earlier versions' : `its ${n} earlier version${n === 1 ? '' : 's'}, its files and its old addresses`;

export function deletePage(chrome: Chrome, input: { owner: OwnerChoice; name: string; slug: string; url: string; versions: number; error?: string; typed?: string }): string {
  const path = dashboardPath(input.owner.name, input.slug);
  const err = input.error ? { attrs: html` aria-invalid="true" aria-describedby="confirm-error"`, note: html`<p class="field-error" id="confirm-error" role="alert">${input.error}</p>` } : { attrs: null, note: null };
  const body = html`${topNav('dashboards')}<a class="back" href="${path}">Back to ${clipped(input.name)}</a>
<h1>Delete ${input.slug}?</h1>
<p>This deletes the dashboard <strong>${input.slug}</strong> (${input.name}) at <code>${input.url}</code>, ${earlierVersions(input.versions)}. It cannot be undone.</p>
<form method="post" action="${path}/delete">${csrfField(chrome.csrf)}
<label class="field" for="confirm">Type <code>${input.slug}</code> to confirm</label>
<input id="confirm" name="confirm" type="text" required autocomplete="off" value="${input.typed ?? ''}"${err.attrs}>${err.note}
<div class="actions"><a href="${path}">Cancel</a><button class="danger" type="submit">Delete ${input.slug}</button></div></form>`;
  return layout({ title: `Delete ${input.slug}`, displayName: chrome.displayName, body, wide: true });
}
