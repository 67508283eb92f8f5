import Router from '@koa/router';
import type { Container } from 'inversify';
import type Koa from 'koa';
import { ManageConnections, type ListedConnection } from '../../../application/connections/manage-connections.js';
import { WebSessionService } from '../../../application/auth/web-session-service.js';
import { AccountStore } from '../../../application/ports/account-store.js';
import { SecretTokens } from '../../../application/ports/secret-tokens.js';
import type { Settings } from '../../../application/ports/settings.js';
import { field, readForm } from './forms.js';
import { html, layout } from './html.js';
import { onRefusal } from './refusals.js';
import { seeOther, sendPage, WebSecurity } from './web-security.js';

export const CONNECTIONS_PATH = '/connections';

/**
 * The web app's warehouse connections page (`/connections`): list, add (tests it at once), test and
 * remove. Signed-in users only; every POST carries the app's CSRF token. Compose it into the app
 * surface's `extra` middleware.
 */
export function createConnectionsRoutes(container: Container, settings: Settings): Router {
  const manage = container.get(ManageConnections);
  const sessions = container.get(WebSessionService);
  const accounts = container.get<AccountStore>(AccountStore);
  const security = new WebSecurity(settings, container.get<SecretTokens>(SecretTokens));
  const router = new Router();

  const currentUser = (ctx: Koa.Context) => security.userId(ctx, sessions);
  const send = sendPage;
  const signIn = (ctx: Koa.Context) => seeOther(ctx, `/sign-in?return_to=${encodeURIComponent(CONNECTIONS_PATH)}`);

  const render = async (ctx: Koa.Context, userId: string, status = 200, message?: { error?: string; notice?: string }) => {
    const list: ListedConnection[] = await manage.listForUser(userId);
    const workspaces = await accounts.listMemberships(userId);
    const csrf = html`<input type="hidden" name="csrf" value="${security.csrfToken(ctx)}">`;
    const rows = list.map(
      (c) => html`<tr><td>${c.label}<div class="note mono">${c.id}</div></td><td>${c.workspaceSlug ?? 'personal'}</td>
<td>${c.status}${c.lastError ? html`<div class="note">${c.lastError}</div>` : ''}</td>
<td><form method="post" action="${CONNECTIONS_PATH}/test" class="inline">${csrf}<input type="hidden" name="id" value="${c.id}"><button class="link" type="submit">Test</button></form>
<form method="post" action="${CONNECTIONS_PATH}/remove" class="inline">${csrf}<input type="hidden" name="id" value="${c.id}"><button class="link" type="submit">Remove</button></form></td></tr>`,
    );
    const body = html`<h1>Warehouse connections</h1>
<p class="muted">PostgreSQL databases your refreshable dashboards can query. URLs are stored encrypted and never shown again. Needs the pro plan.</p>
${message?.error ? html`<div class="error">${message.error}</div>` : ''}${message?.notice ? html`<p>${message.notice}</p>` : ''}
${list.length ? html`<table><thead><tr><th>Label</th><th>Scope</th><th>Status</th><th></th></tr></thead><tbody>${rows}</tbody></table>` : html`<p>You have no warehouse connections.</p>`}
<h2>Add a connection</h2>
<form method="post" action="${CONNECTIONS_PATH}/add">${csrf}
<label>Label <input name="label" required maxlength="100"></label>
<label>URL <input name="url" required placeholder="postgres://reader:password@host:5432/database"></label>
<label>Scope <select name="workspace"><option value="">Personal</option>${workspaces.map((w) => html`<option value="${w.workspace.id}">${w.workspace.name}</option>`)}</select></label>
<div class="actions"><button type="submit">Add and test</button></div></form>
<p class="small"><a href="/account">Back to your account</a></p>`;
    send(ctx, status, layout({ title: 'Warehouse connections', displayName: settings.serviceDisplayName, body, wide: true }));
  };

  /** A POST from this page by a signed-in user, or null with the response already set. */
  const posted = async (ctx: Koa.Context): Promise<{ userId: string; form: Record<string, string | string[]> } | null> => {
    const form = await readForm(ctx);
    if (!security.checkPost(ctx, field(form, 'csrf'))) {
      send(ctx, 403, layout({ title: 'This form has expired', displayName: settings.serviceDisplayName, body: html`<h1>This form has expired</h1><p>Reload the page and try again.</p>` }));
      return null;
    }
    const userId = await currentUser(ctx);
    if (!userId) {
      signIn(ctx);
      return null;
    }
    return { userId, form };
  };

  connectionsActions(router, { manage, currentUser, signIn, render, posted });
  return router;
}

interface ConnectionsPage {
  manage: ManageConnections;
  currentUser: (ctx: Koa.Context) => Promise<string | null>;
  signIn: (ctx: Koa.Context) => void;
  render: (ctx: Koa.Context, userId: string, status?: number, message?: { error?: string; notice?: string }) => Promise<void>;
  posted: (ctx: Koa.Context) => Promise<{ userId: string; form: Record<string, string | string[]> } | null>;
}

/** The page itself and its three forms: add, test and remove. */
function connectionsActions(router: Router, { manage, currentUser, signIn, render, posted }: ConnectionsPage): void {
  router.get(CONNECTIONS_PATH, async (ctx) => {
    const userId = await currentUser(ctx);
    if (!userId) return signIn(ctx);
    await render(ctx, userId);
  });

  router.post(`${CONNECTIONS_PATH}/add`, async (ctx) => {
    const post = await posted(ctx);
    if (!post) return;
    onRefusal(ctx, (ctx, error, status) => render(ctx, post.userId, status, { error: error.message }));
    const created = await manage.create({
      ownerUserId: post.userId,
      workspaceId: field(post.form, 'workspace') || null,
      label: field(post.form, 'label'),
      url: field(post.form, 'url'),
    });
    await render(ctx, post.userId, 200, { notice: `Added "${created.label}": ${created.status}.` });
  });

  for (const action of ['test', 'remove'] as const) {
    router.post(`${CONNECTIONS_PATH}/${action}`, async (ctx) => {
      const post = await posted(ctx);
      if (!post) return;
      const connection = await manage.mayManage(post.userId, field(post.form, 'id'));
      if (!connection) return render(ctx, post.userId, 404, { error: 'That connection was not found among your connections.' });
      if (action === 'remove') {
        await manage.remove(connection.id);
        return render(ctx, post.userId, 200, { notice: `Removed "${connection.label}".` });
      }
      const tested = await manage.test(connection.id);
      await render(ctx, post.userId, 200, { notice: `"${tested.label}" is ${tested.status}.` });
    });
  }
}
