import type { EmbedState } from '../../../application/sharing/manage-embeds.js';
import { html, type Html } from './html.js';

/** What a POST answered that is shown this once: a new secret, or a URL made for testing. */
export interface EmbedOnce {
  secret?: string;
  url?: { href: string; expiresAt: Date };
}

/** A refusal about one of the section's forms (the dashboard page's Problem, with the section's form names). */
interface EmbedProblem {
  form: string;
  field?: string;
  message: string;
}

export interface EmbedSectionInput {
  csrf: string;
  /** The dashboard page's path; the section's forms post below it. */
  path: string;
  state: EmbedState;
  once?: EmbedOnce;
  problem?: EmbedProblem;
  values?: Record<string, string>;
}

/** How long a test URL works: the choices of the generator (the CLI takes any duration up to 30 days). */
export const TEST_URL_LIFETIMES: ReadonlyArray<readonly [string, string]> = [
  ['1h', '1 hour'],
  ['1d', '1 day'],
  ['7d', '7 days'],
  ['30d', '30 days'],
];

const when = (date: Date) => date.toISOString().slice(0, 16).replace('T', ' ') + ' UTC';

function problemFor(input: EmbedSectionInput, form: string): { attrs: Html | null; note: Html | null } {
  const problem = input.problem;
  if (!problem || problem.form !== form) return { attrs: null, note: null };
  const id = `${form}-error`;
  return { attrs: html` aria-invalid="true" aria-describedby="${id}"`, note: html`<p class="field-error" id="${id}" role="alert">${problem.message}</p>` };
}

/**
 * The dashboard page's embed settings: the switch, the allowed origins, the owner's secret (shown once
 * after it is made) and a test URL generator. Plain forms with the CSRF token, no script.
 */
export function embedSection(input: EmbedSectionInput): Html {
  const { state, path } = input;
  const csrf = html`<input type="hidden" name="csrf" value="${input.csrf}">`;
  const switchForm = html`<form method="post" action="${path}/embed/switch" class="inline">${csrf}<input type="hidden" name="enabled" value="${state.enabled ? 'off' : 'on'}"><button type="submit"${state.enabled ? null : html` class="primary"`}>${state.enabled ? 'Turn embedding off' : 'Turn embedding on'}</button></form>`;
  const status = state.enabled
    ? html`<p><span class="badge ok">On</span> Pages on the origins below can frame this dashboard through a signed URL. ${switchForm}</p>`
    : html`<p><span class="badge">Off</span> No other site can frame this dashboard. ${switchForm}</p>${problemFor(input, 'embed-switch').note}`;
  return html`<h2 id="embed">Embed on other sites</h2>${status}
<h3>Allowed origins</h3>${originsList(input, csrf)}
<h3>Embed secret</h3>${secretPart(input, csrf)}
<h3>Test URL</h3>${urlPart(input, csrf)}`;
}

function originsList(input: EmbedSectionInput, csrf: Html): Html {
  const { state, path } = input;
  const err = problemFor(input, 'embed-origins');
  const rows = state.origins.length
    ? html`<ul id="embed-origins">${state.origins.map(
        (origin) => html`<li><code>${origin}</code> <form method="post" action="${path}/embed/origins/remove" class="inline">${csrf}<input type="hidden" name="origin" value="${origin}"><button class="link" type="submit" aria-label="Remove ${origin}">Remove</button></form></li>`,
      )}</ul>`
    : html`<p class="muted">None yet: no site can frame it, even with a signed URL.</p>`;
  return html`${rows}<form method="post" action="${path}/embed/origins">${csrf}
<div class="row-form"><div class="stack"><label for="embed-origin">Origin allowed to frame it</label><input id="embed-origin" name="origin" type="url" required placeholder="https://intranet.example.com" value="${input.values?.origin ?? ''}" aria-describedby="embed-origin-help"${err.attrs}></div><button type="submit">Allow origin</button></div>${err.note}
<p class="note" id="embed-origin-help">A scheme and host (and a port if not the default), like the address bar shows the host page's site.</p></form>`;
}

function secretPart(input: EmbedSectionInput, csrf: Html): Html {
  const { state, path, once } = input;
  const fresh = once?.secret
    ? html`<p class="notice" role="status">This is the new embed secret. Copy it to the server that makes your embed URLs now: it is not shown again.</p><pre tabindex="0" aria-label="New embed secret">${once.secret}</pre>`
    : null;
  const made = state.secretCreatedAt
    ? html`<p>Made ${when(state.secretCreatedAt)}. It signs the embed URLs of every dashboard of ${state.subdomain}; rotating it stops all of them at once.</p>`
    : html`<p class="muted">None yet: it is made when embedding is first turned on.</p>`;
  const label = state.secretCreatedAt ? 'Rotate secret' : 'Make secret';
  return html`${fresh}${made}<form method="post" action="${path}/embed/secret">${csrf}<button type="submit">${label}</button></form>${problemFor(input, 'embed-secret').note}`;
}

function urlPart(input: EmbedSectionInput, csrf: Html): Html {
  const { state, path, once } = input;
  if (!state.enabled) return html`<p class="muted">Turn embedding on to make a signed URL.</p>`;
  const made = once?.url
    ? html`<p class="notice" role="status">Signed URL, valid until ${when(once.url.expiresAt)}:</p><pre tabindex="0" aria-label="Signed embed URL">${once.url.href}</pre><p><a href="${once.url.href}" rel="noreferrer">Open the embed</a></p>`
    : null;
  const chosen = input.values?.expires ?? '1d';
  const err = problemFor(input, 'embed-url');
  return html`<p class="note">Your host page makes these itself with the secret (see the README); this one is for trying it out.</p>${made}
<form method="post" action="${path}/embed/url">${csrf}<div class="row-form"><div class="stack"><label for="embed-expires">Valid for</label><select id="embed-expires" name="expires"${err.attrs}>${TEST_URL_LIFETIMES.map(
    ([value, text]) => html`<option value="${value}"${value === chosen ? html` selected` : null}>${text}</option>`,
  )}</select></div><button type="submit">Make a test URL</button></div>${err.note}</form>`;
}
