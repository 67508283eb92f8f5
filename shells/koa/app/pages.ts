import type { ConsentView } from '../../../application/auth/consent.js';
import type { GrantView } from '../../../application/auth/grants.js';
import type { AccountOverview } from '../../../application/auth/web-accounts.js';
import { clientIdHost } from '../../../domain/client-metadata.js';
import { UPSTREAM_START_PATH } from '../../../domain/upstream-sign-in.js';
import { html, layout, type Html } from './html.js';

/** The web app's pages. No script: every action is a plain form POST carrying the CSRF token. */

export interface PageContext {
  /** The product's name on every page (SERVICE_DISPLAY_NAME). */
  displayName: string;
  csrf: string;
  /** The upstream provider's name when its sign-in is offered (OIDC_NAME), else null or absent. */
  upstreamSignIn?: string | null;
}

const csrfField = (csrf: string) => html`<input type="hidden" name="csrf" value="${csrf}">`;
const errorBox = (error?: string | null) => (error ? html`<div class="error" role="alert">${error}</div>` : null);

function signInFields(ctx: PageContext, input: { returnTo: string; email?: string }): Html {
  return html`<form method="post" action="/sign-in">${csrfField(ctx.csrf)}
<input type="hidden" name="return_to" value="${input.returnTo}">
<label class="field" for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required value="${input.email ?? ''}">
<label class="field" for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<button class="primary full" type="submit">Sign in</button>
</form>${upstreamSignInLink(ctx, input.returnTo)}`;
}

/** A plain link (works without script), next to every email and password form. */
const upstreamSignInLink = (ctx: PageContext, returnTo: string) =>
  ctx.upstreamSignIn
    ? html`<p class="or muted small">or</p>
<a class="button full" href="${UPSTREAM_START_PATH}?return_to=${encodeURIComponent(returnTo)}">Sign in with ${ctx.upstreamSignIn}</a>`
    : null;

const signUpLink = (open: boolean, returnTo: string) =>
  open ? html`<p class="muted small spaced">No account yet? <a href="/sign-up?return_to=${encodeURIComponent(returnTo)}">Create one</a></p>` : null;

/**
 * The sign-in page. `privateHost` is set when a private dashboard sent the visitor here: the page then
 * names only that host, never the path, so it reads the same whether or not a dashboard exists there.
 */
export function signInPage(
  ctx: PageContext,
  input: { returnTo: string; email?: string; error?: string; signUpOpen: boolean; privateHost?: string | null },
): string {
  const heading = input.privateHost
    ? html`<h1>This dashboard is private</h1><p class="muted">Dashboards on <strong>${input.privateHost}</strong> marked private are shown to the members of that account or workspace, or to someone with a share link. Sign in to continue.</p>`
    : html`<h1>Sign in</h1><p class="muted">to ${ctx.displayName}</p>`;
  const connect = input.privateHost ? null : html`
<p class="muted small">Setting up an assistant? <a href="/connect">Connect an AI client</a></p>`;
  const body = html`${heading}${errorBox(input.error)}
${signInFields(ctx, input)}${signUpLink(input.signUpOpen, input.returnTo)}${connect}`;
  return layout({ title: input.privateHost ? 'Sign in to a private dashboard' : 'Sign in', displayName: ctx.displayName, body });
}

export function signUpPage(ctx: PageContext, input: { returnTo: string; handle?: string; email?: string; error?: string; open: boolean }): string {
  const signIn = html`<p class="muted small spaced">Already have an account? <a href="/sign-in?return_to=${encodeURIComponent(input.returnTo)}">Sign in</a></p>`;
  if (!input.open) {
    const body = html`<h1>Sign-up is closed</h1><p class="muted">Accounts on ${ctx.displayName} are created by its operator. Ask them for one.</p>${signIn}`;
    return layout({ title: 'Sign-up closed', displayName: ctx.displayName, body });
  }
  const body = html`<h1>Create your account</h1><p class="muted">Your handle is the address of your dashboards.</p>${errorBox(input.error)}
<form method="post" action="/sign-up">${csrfField(ctx.csrf)}<input type="hidden" name="return_to" value="${input.returnTo}">
<label class="field" for="handle">Handle</label>
<input id="handle" name="handle" type="text" autocomplete="username" required pattern="[a-z0-9](?:[a-z0-9-]*[a-z0-9])?" maxlength="40" value="${input.handle ?? ''}">
<p class="note">Lowercase letters, digits and dashes.</p>
<label class="field" for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="email" required value="${input.email ?? ''}">
<label class="field" for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="new-password" required minlength="10">
<p class="note">At least 10 characters.</p>
<button class="primary full" type="submit">Create account</button>
</form>${signIn}`;
  return layout({ title: 'Create your account', displayName: ctx.displayName, body });
}

export function consentPage(
  ctx: PageContext,
  input: { requestHandle: string; view: ConsentView; error?: string; signUpOpen: boolean; dashboardsAt: (name: string) => string },
): string {
  const { view } = input;
  const client = view.clientName ?? 'An unnamed client';
  const returnTo = `/consent?request=${encodeURIComponent(input.requestHandle)}`;
  const redirectHost = new URL(view.redirectUri).host;
  const redirectNote = view.loopbackRedirect
    ? html`<p class="note">An address on this computer: the client app running locally.</p>`
    : html`<p class="warn">This sends you, and the authorization, to <strong>${redirectHost}</strong>. Allow only if you trust that site.</p>`;
  // A metadata document names its client as it likes; the host it is published on is what vouches for it.
  const clientFrom = view.clientHost
    ? html`<p class="client-host">Published by <strong>${view.clientHost}</strong>. Allow only if you trust that site to speak for ${client}.</p>`
    : null;
  const clientNote = view.clientHost
    ? html`<p class="note">Described by its metadata document at <span class="mono">${view.clientId}</span></p>`
    : html`<p class="note mono">${view.clientId}</p>`;
  const details = html`<dl>
<div><dt>Client</dt><dd><strong>${client}</strong>${clientNote}</dd></div>
<div><dt>Redirect URI</dt><dd><code>${view.redirectUri}</code>${redirectNote}</dd></div>
<div><dt>Scope</dt><dd><code>${view.requestedScope ?? view.scope}</code><p class="note">${view.scopeDescription}.</p></dd></div>
</dl>`;
  const cancel = html`<form method="post" action="/consent" class="inline">${csrfField(ctx.csrf)}<input type="hidden" name="request" value="${input.requestHandle}"><button type="submit" name="decision" value="deny">Cancel</button></form>`;

  let decision: Html;
  if (!view.user) {
    decision = html`<h2>Sign in to continue</h2>${errorBox(input.error)}${signInFields(ctx, { returnTo })}${signUpLink(input.signUpOpen, returnTo)}
<div class="actions">${cancel}</div>`;
  } else {
    const user = view.user;
    const choices = user.targets.map(
      (target, i) => html`<label class="choice"><input type="radio" name="target" value="${target.value}"${i === 0 ? html` checked` : null}>
<span><strong>${target.kind === 'personal' ? 'Personal account' : target.label}</strong>
<span class="note">${target.kind === 'personal' ? `@${target.name}` : `Workspace ${target.name}`} · ${input.dashboardsAt(target.name)}</span></span></label>`,
    );
    decision = html`<div class="who"><span>Signed in as <strong>@${user.handle}</strong> <span class="muted">${user.email}</span></span>
<form method="post" action="/sign-out" class="inline">${csrfField(ctx.csrf)}<input type="hidden" name="return_to" value="${returnTo}"><button class="link" type="submit">Not you?</button></form></div>
${errorBox(input.error)}
<form method="post" action="/consent">${csrfField(ctx.csrf)}<input type="hidden" name="request" value="${input.requestHandle}">
<fieldset><legend>Allow access to</legend>${choices}
<p class="note">The client can act only on what you choose here. To change it later, connect the client again.</p></fieldset>
<div class="actions decide"><button class="primary" type="submit" name="decision" value="allow">Allow access</button><button type="submit" name="decision" value="deny">Cancel</button></div>
</form>`;
  }
  const body = html`<h1>Authorize ${client}</h1>
${clientFrom}<p class="muted">${client} is asking to use your ${ctx.displayName} dashboards.</p>
${details}${decision}
<footer class="note">You can revoke this access at any time on your <a href="/account">account page</a>.</footer>`;
  return layout({ title: `Authorize ${client}`, displayName: ctx.displayName, body });
}

const day = (date: Date) => date.toISOString().slice(0, 10);

/** A client known by its metadata document: the host it is published on, under its name. */
function clientHostNote(clientId: string): Html | null {
  const host = clientIdHost(clientId);
  return host ? html`<br><span class="note mono">${host}</span>` : null;
}

export function accountPage(
  ctx: PageContext,
  input: { overview: AccountOverview; grants: GrantView[]; dashboardsAt: (name: string) => string; scheme: string; notice?: string },
): string {
  const link = (name: string) => html`<a class="mono" href="${input.scheme}://${input.dashboardsAt(name)}/">${input.dashboardsAt(name)}</a>`;
  const { user, workspaces } = input.overview;
  const workspaceRows = workspaces.length
    ? html`<table><tr><th>Workspace</th><th>Role</th><th>Dashboards</th></tr>${workspaces.map(
        (w) => html`<tr><td><strong>${w.name}</strong><br><span class="note mono">${w.slug}</span></td><td>${w.role}</td><td>${link(w.slug)}</td></tr>`,
      )}</table>`
    : html`<p class="muted">You are not a member of any workspace.</p>`;
  const active = input.grants.filter((g) => g.status === 'active');
  const grantList = active.length
    ? html`<table><tr><th>Client</th><th>Access to</th><th>Since</th><th></th></tr>${active.map(
        (g) => html`<tr><td>${g.clientName ?? 'Unnamed client'}${clientHostNote(g.clientId)}</td><td>${g.lock === 'workspace' ? `Workspace ${g.workspace}` : g.lock === 'personal' ? 'Personal account' : 'Any (legacy)'}</td><td>${day(g.createdAt)}</td>
<td><form method="post" action="/account/grants/revoke" class="inline">${csrfField(ctx.csrf)}<input type="hidden" name="grant" value="${g.id}"><button class="link" type="submit">Revoke</button></form></td></tr>`,
      )}</table>`
    : html`<p class="muted">No client is connected. Add the MCP address of ${ctx.displayName} to an AI client to connect one.</p>`;
  const grantRows = html`${grantList}<p class="small"><a href="/connect">Connect an AI client</a>: Claude Code, Claude Desktop, Cursor, VS Code, ChatGPT.</p>`;
  const body = html`<h1>@${user.handle}</h1>
${input.notice ? html`<p class="badge ok">${input.notice}</p>` : null}
<dl>
<div><dt>Handle</dt><dd><code>${user.handle}</code></dd></div>
<div><dt>Email</dt><dd>${user.email}</dd></div>
<div><dt>Plan</dt><dd><span class="badge">${user.plan}</span></dd></div>
<div><dt>Dashboards</dt><dd>${link(user.handle)}</dd></div>
</dl>
<h2>Your dashboards</h2><p class="muted">Versions, refreshes, views, renames and deletion, for your account and every workspace. <a href="/dashboards">Manage dashboards</a></p>
<h2>Workspaces</h2>${workspaceRows}
<h2>Connected clients</h2>${grantRows}
<h2>Warehouse connections</h2><p class="muted">PostgreSQL databases your refreshable dashboards query (pro plan). <a href="/connections">Manage connections</a></p>
<form method="post" action="/sign-out">${csrfField(ctx.csrf)}<div class="actions"><button type="submit">Sign out</button></div></form>`;
  return layout({ title: `@${user.handle}`, displayName: ctx.displayName, body, wide: true });
}

export function messagePage(displayName: string, input: { title: string; message: string; link?: { href: string; text: string } }): string {
  const body = html`<h1>${input.title}</h1><p class="muted">${input.message}</p>${input.link ? html`<p class="spaced"><a href="${input.link.href}">${input.link.text}</a></p>` : null}`;
  return layout({ title: input.title, displayName, body });
}
