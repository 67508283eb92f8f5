import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { launchChromium, openPage, signUpInBrowser } from '../support/browser.js';
import { AccountStore } from '../../application/ports/account-store.js';
import { TokenVerifier } from '../../application/ports/token-verifier.js';
import { request } from '../support/http.js';
import { pkcePair } from '../support/oauth-kit.js';
import { startOAuthServer, type OAuthServer } from '../support/oauth-server.js';
import { aWorkspace } from '../support/mothers.js';


/** The MCP client's side of the redirect: a loopback listener that records what it receives. */
async function loopbackClient(): Promise<{ redirectUri: string; next(): Promise<URLSearchParams>; close(): Promise<void> }> {
  const waiting: Array<(params: URLSearchParams) => void> = [];
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname === '/callback') waiting.shift()?.(url.searchParams);
    res.writeHead(200, { 'content-type': 'text/plain' }).end('You can close this window.');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    redirectUri: `http://127.0.0.1:${port}/callback`,
    next: () => new Promise((resolve) => waiting.push(resolve)),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe('e2e: consent screen in a real browser (no JavaScript)', function () {
  this.timeout(60_000);
  let server: OAuthServer;
  let browser: Browser;
  let page: Page;
  let client: Awaited<ReturnType<typeof loopbackClient>>;
  let clientId: string;

  before(async () => {
    server = await startOAuthServer();
    client = await loopbackClient();
    const registered = await request({
      url: `${server.url}/register`,
      host: server.hosts.api,
      method: 'POST',
      body: { client_name: 'Claude Desktop', redirect_uris: [client.redirectUri] },
    });
    clientId = registered.json().client_id;
    browser = await launchChromium();
    // The consent screen must work without JavaScript, so the browser runs none.
    ({ page } = await openPage(browser, { javaScriptEnabled: false, viewport: { width: 900, height: 1000 } }));
  });
  after(async () => {
    await browser?.close();
    await client?.close();
    await server?.close();
  });

  const startAuthorization = async (state: string) => {
    const pkce = pkcePair();
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: client.redirectUri,
      code_challenge: pkce.challenge,
      code_challenge_method: 'S256',
      state,
      scope: 'mcp',
    });
    await page.goto(`${server.settings.baseUrl}/authorize?${query}`);
    return pkce;
  };

  it('signs up, signs in on the consent screen, picks a workspace, allows access, and the client gets a working code', async () => {
    const app = server.settings.appUrl;
    await signUpInBrowser(page, app, { handle: 'dana', email: 'dana@example.com', password: 'a long enough password' });
    expect(await page.locator('h1').textContent()).to.equal('@dana');

    // An operator adds Dana to a workspace.
    const accounts = server.container.get<AccountStore>(AccountStore);
    const dana = (await accounts.findUserByHandle('dana'))!;
    const workspace = await aWorkspace(accounts, { slug: 'acme', name: 'Acme Analytics' });
    await accounts.addMember(workspace.id, dana.id, 'member');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${app}/sign-in`);

    const pkce = await startAuthorization('first-run');
    await page.waitForURL((url) => url.href.startsWith(`${app}/consent?request=`));
    expect(await page.locator('h1').textContent()).to.equal('Authorize Claude Desktop');
    expect(await page.locator('code').first().textContent()).to.equal(client.redirectUri);
    await page.getByLabel('Email').fill('dana@example.com');
    await page.getByLabel('Password').fill('a long enough password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForSelector('text=Allow access to');
    if (process.env.CONSENT_SCREENSHOT) await page.screenshot({ path: process.env.CONSENT_SCREENSHOT, fullPage: true });

    await page.getByText('Acme Analytics').click();
    expect(await page.getByRole('radio', { name: /Acme Analytics/ }).isChecked()).to.equal(true);
    const received = client.next();
    await page.getByRole('button', { name: 'Allow access' }).click();
    const params = await received;
    expect(params.get('state')).to.equal('first-run');
    expect(params.get('error')).to.equal(null);
    const code = params.get('code')!;

    const tokens = await request({
      url: `${server.url}/token`,
      host: server.hosts.api,
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code, code_verifier: pkce.verifier, redirect_uri: client.redirectUri, client_id: clientId }).toString(),
    });
    expect(tokens.status).to.equal(200);
    const principal = await server.container.get<TokenVerifier>(TokenVerifier).verify(tokens.json().access_token);
    expect(principal).to.deep.include({ userId: dana.id, lock: { kind: 'workspace', workspaceId: workspace.id, workspaceSlug: 'acme' } });
  });

  it('Enter on the target choice allows, as the screen\'s primary button, rather than cancelling', async () => {
    await startAuthorization('enter-run');
    await page.waitForSelector('text=Allow access to');
    const buttons = await page.locator('form[action="/consent"] .actions button').allTextContents();
    expect(buttons).to.deep.equal(['Allow access', 'Cancel']); // in the markup; CSS shows Cancel on the left
    // Real buttons in their own action row: outside the radio group, in no box styled as a choice.
    const row = await page.getByRole('button', { name: 'Allow access' }).evaluate((allow) => {
      const cancel = allow.parentElement!.querySelector('button[value="deny"]')!;
      const actions = allow.parentElement!;
      return {
        tags: [allow.tagName, cancel.tagName],
        types: [(allow as HTMLButtonElement).type, (cancel as HTMLButtonElement).type],
        inFieldset: Boolean(allow.closest('fieldset') || cancel.closest('fieldset')),
        inChoice: Boolean(allow.closest('.choice') || cancel.closest('.choice')),
        rowBorder: getComputedStyle(actions).borderTopStyle,
        afterFieldset: actions.previousElementSibling?.tagName,
      };
    });
    expect(row).to.deep.equal({ tags: ['BUTTON', 'BUTTON'], types: ['submit', 'submit'], inFieldset: false, inChoice: false, rowBorder: 'none', afterFieldset: 'FIELDSET' });
    const received = client.next();
    await page.getByRole('radio', { name: /Acme Analytics/ }).press('Enter');
    const params = await received;
    expect(params.get('state')).to.equal('enter-run');
    expect(params.get('error')).to.equal(null);
    expect(params.get('code')).to.be.a('string');
  });

  it('Cancel sends the client access_denied', async () => {
    await startAuthorization('second-run');
    await page.waitForSelector('text=Allow access to');
    const received = client.next();
    await page.getByRole('button', { name: 'Cancel' }).click();
    const params = await received;
    expect(params.get('error')).to.equal('access_denied');
    expect(params.get('error_description')).to.equal('The user declined the authorization request.');
    expect(params.get('state')).to.equal('second-run');
    expect(params.get('code')).to.equal(null);
  });
});
