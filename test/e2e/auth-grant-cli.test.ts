import { expect } from 'chai';
import { AccountStore } from '../../application/ports/account-store.js';
import { TokenVerifier } from '../../application/ports/token-verifier.js';
import { buildContainer, type AppContainer } from '../../shells/container.js';
import { createMigratedTestDatabase, type TestDatabase } from '../support/database.js';
import { testSettings } from '../support/settings.js';
import { mintAccessToken } from '../support/tokens.js';
import { runDashpub as dashpub, spawnDashpub } from '../support/cli.js';
import { aUser, aWorkspace } from '../support/mothers.js';

describe('e2e: dashpub grant list / grant revoke (PostgreSQL)', function () {
  this.timeout(60_000);
  let database: TestDatabase;
  let app: AppContainer;
  let env: NodeJS.ProcessEnv;

  before(async () => {
    database = await createMigratedTestDatabase();
    env = { DATABASE_URL: database.url, REDIS_URL: '' };
    app = await buildContainer(testSettings({ databaseUrl: database.url }), { role: 'cli' });
  });
  after(async () => {
    await app?.close();
    await database?.drop();
  });

  it('lists grants (all, or one user\'s) and revokes one so its token fails at once', async () => {
    const accounts = app.container.get<AccountStore>(AccountStore);
    const ada = await aUser(accounts, { handle: 'ada' });
    const bob = await aUser(accounts, { handle: 'bob' });
    const team = await aWorkspace(accounts, { slug: 'team' });
    await accounts.addMember(team.id, ada.id, 'member');
    const adaToken = await mintAccessToken(app.container, { userId: ada.id, lock: { kind: 'workspace', workspaceId: team.id }, clientName: 'Claude' });
    const bobToken = await mintAccessToken(app.container, { userId: bob.id, clientName: 'Cursor' });

    const all = await spawnDashpub(env, ['grant', 'list']);
    expect(all.code, all.stderr).to.equal(0);
    const lines = all.stdout.trim().split('\n');
    expect(lines[0]).to.match(/^ID\s+USER\s+CLIENT\s+TARGET\s+STATUS\s+CREATEDAT\s+SESSIONEXPIRESAT$/);
    expect(lines.slice(1).map((line) => line.split(/\s+/).slice(1, 3).join(' ')).sort()).to.deep.equal(['ada Claude', 'bob Cursor']);
    expect(all.stdout).to.contain('workspace team');
    const adas = JSON.parse((await dashpub(env, ['--json', 'grant', 'list', '--user', 'ada'])).stdout);
    expect(adas).to.have.length(1);
    expect(adas[0]).to.include({ id: adaToken.grantId, user: 'ada', clientName: 'Claude', lock: 'workspace', workspace: 'team', status: 'active' });

    const revoked = await dashpub(env, ['grant', 'revoke', adaToken.grantId]);
    expect(revoked.code, revoked.stderr).to.equal(0);
    expect(revoked.stdout).to.contain(`revoked grant ${adaToken.grantId} (ada, Claude)`);
    const verifier = app.container.get<TokenVerifier>(TokenVerifier);
    expect(await verifier.verify(adaToken.access_token)).to.equal(null);
    expect(await verifier.verify(bobToken.access_token)).to.deep.include({ userId: bob.id });

    const unknown = await dashpub(env, ['--json', 'grant', 'revoke', 'no-such-grant']);
    expect(unknown.code).to.equal(1);
    expect(JSON.parse(unknown.stderr)).to.deep.equal({ error: 'not_found', message: 'no grant with id "no-such-grant"' });
  });
});
