import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { GrantRecord, OAuthStore } from '../../application/ports/oauth-store.js';
import type { GrantLock } from '../../domain/scope.js';

export interface OAuthStoreFixture {
  store: OAuthStore;
  /** A user that exists (grants and sessions reference users). */
  newUser(): Promise<string>;
  newWorkspace(): Promise<{ id: string; slug: string }>;
  close(): Promise<void>;
}

const T0 = new Date(Date.UTC(2026, 0, 1, 12));
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);
const hash = () => randomUUID().replace(/-/g, '').padEnd(64, '0');
/** A registered client as the store takes it and answers it (a fresh object each time). */
const registeredClient = (id: string) => ({
  id,
  name: 'Claude',
  redirectUris: ['http://127.0.0.1:1/cb', 'https://a.example/cb'],
  grantTypes: ['authorization_code', 'refresh_token'],
  scope: null,
  createdAt: T0,
});

/** The behaviour every OAuthStore adapter must show; run once per adapter. */
export function describeOAuthStoreContract(name: string, makeFixture: () => Promise<OAuthStoreFixture>): void {
  describe(`OAuthStore contract: ${name}`, () => {
    let fx: OAuthStoreFixture;
    let store: OAuthStore;
    let clientId: string;
    let userId: string;

    beforeEach(async () => {
      fx = await makeFixture();
      store = fx.store;
      clientId = randomUUID();
      await store.insertClient(registeredClient(clientId));
      userId = await fx.newUser();
    });
    afterEach(() => fx.close());

    const grant = (overrides: Partial<GrantRecord> = {}): GrantRecord => ({
      id: randomUUID(),
      userId,
      clientId,
      lock: { kind: 'personal' },
      scope: 'mcp',
      resource: 'http://localhost:8787/mcp',
      createdAt: T0,
      sessionExpiresAt: at(86_400),
      revokedAt: null,
      revokedReason: null,
      refresh: { currentHash: null, previousHash: null, previousRetryLeft: false, rotatedAt: null, rotationRequest: null },
      ...overrides,
    });

    it('stores clients', async () => {
      expect(await store.findClient(clientId)).to.deep.equal(registeredClient(clientId));
      expect(await store.findClient(randomUUID())).to.equal(null);
      expect(await store.findClient('not-a-uuid')).to.equal(null);
    });

    it('saves a metadata document client by its URL, replacing the earlier copy, and grants refer to it', async () => {
      const url = 'https://client.example/oauth/metadata.json';
      const first = {
        id: url,
        name: 'Doc Client',
        redirectUris: ['http://127.0.0.1:1/cb'],
        grantTypes: ['authorization_code', 'refresh_token'],
        scope: null,
        createdAt: T0,
        metadataExpiresAt: at(300),
      };
      await store.saveClient(first);
      expect(await store.findClient(url)).to.deep.equal(first);
      const second = { ...first, name: 'Doc Client 2', redirectUris: ['https://client.example/cb'], metadataExpiresAt: at(600) };
      await store.saveClient(second);
      expect(await store.findClient(url)).to.deep.equal(second);
      const g = grant({ clientId: url });
      await store.insertGrant(g);
      expect((await store.findGrant(g.id))?.clientId).to.equal(url);
      expect(await store.findClient('https://client.example/other.json')).to.equal(null);
    });

    it('stores authorization requests and consumes each once', async () => {
      const request = {
        handleHash: hash(),
        clientId,
        redirectUri: 'http://127.0.0.1:1/cb',
        state: null,
        codeChallenge: 'c'.repeat(43),
        requestedScope: 'mcp extra',
        scope: 'mcp',
        resource: 'http://localhost:8787/mcp',
        createdAt: T0,
        expiresAt: at(1800),
      };
      await store.insertAuthorizationRequest(request);
      expect(await store.findAuthorizationRequest(request.handleHash)).to.deep.equal(request);
      expect(await store.deleteAuthorizationRequest(request.handleHash)).to.equal(true);
      expect(await store.deleteAuthorizationRequest(request.handleHash)).to.equal(false);
      expect(await store.findAuthorizationRequest(request.handleHash)).to.equal(null);
    });

    it('round-trips every lock kind', async () => {
      const workspace = await fx.newWorkspace();
      const locks: GrantLock[] = [
        { kind: 'personal' },
        { kind: 'workspace', workspaceId: workspace.id, workspaceSlug: workspace.slug },
        { kind: 'legacy' },
      ];
      for (const lock of locks) {
        const g = grant({ lock });
        await store.insertGrant(g);
        expect(await store.findGrant(g.id)).to.deep.equal(g);
      }
      expect(await store.findGrant(randomUUID())).to.equal(null);
      expect(await store.findGrant('nope')).to.equal(null);
    });

    it('lists grants newest first, optionally for one user', async () => {
      const other = await fx.newUser();
      const a = grant({ createdAt: at(1) });
      const b = grant({ createdAt: at(2) });
      const c = grant({ createdAt: at(3), userId: other });
      for (const g of [a, b, c]) await store.insertGrant(g);
      expect((await store.listGrants({})).map((g) => g.id)).to.deep.equal([c.id, b.id, a.id]);
      expect((await store.listGrants({ userId })).map((g) => g.id)).to.deep.equal([b.id, a.id]);
      expect(await store.listGrants({ userId: randomUUID() })).to.deep.equal([]);
    });

    it('updates the refresh chain and revokes once', async () => {
      const g = grant();
      await store.insertGrant(g);
      const chain = { currentHash: hash(), previousHash: hash(), previousRetryLeft: true, rotatedAt: at(4), rotationRequest: hash() };
      await store.updateRefreshChain(g.id, chain);
      expect((await store.findGrant(g.id))!.refresh).to.deep.equal(chain);
      expect(await store.revokeGrant(g.id, at(5), 'test')).to.equal(true);
      expect(await store.revokeGrant(g.id, at(6), 'again')).to.equal(false);
      expect(await store.findGrant(g.id)).to.deep.include({ revokedAt: at(5), revokedReason: 'test' });
      expect(await store.revokeGrant(randomUUID(), at(5), 'test')).to.equal(false);
    });

    it('marks a code used exactly once, even under concurrent attempts', async () => {
      const g = grant();
      await store.insertGrant(g);
      const code = {
        codeHash: hash(),
        grantId: g.id,
        clientId,
        redirectUri: 'http://127.0.0.1:1/cb',
        codeChallenge: 'c'.repeat(43),
        resource: g.resource,
        expiresAt: at(60),
        usedAt: null,
      };
      await store.insertCode(code);
      expect(await store.findCode(code.codeHash)).to.deep.equal(code);
      const results = await Promise.all([store.markCodeUsed(code.codeHash, at(1)), store.markCodeUsed(code.codeHash, at(1))]);
      expect(results.filter(Boolean)).to.have.length(1);
      expect((await store.findCode(code.codeHash))!.usedAt).to.deep.equal(at(1));
      expect(await store.markCodeUsed(hash(), at(1))).to.equal(false);
    });

    it('finds an access token with its grant, and refresh tokens by hash', async () => {
      const g = grant();
      await store.insertGrant(g);
      const token = { tokenHash: hash(), grantId: g.id, createdAt: T0, expiresAt: at(3000) };
      await store.insertAccessToken(token);
      expect(await store.findAccessToken(token.tokenHash)).to.deep.equal({ token, grant: g });
      expect(await store.findAccessToken(hash())).to.equal(null);
      const refresh = hash();
      await store.insertRefreshToken({ tokenHash: refresh, grantId: g.id, createdAt: T0 });
      expect(await store.findRefreshTokenGrant(refresh)).to.equal(g.id);
      expect(await store.findRefreshTokenGrant(hash())).to.equal(null);
    });

    it('stores and ends web sessions', async () => {
      const session = { tokenHash: hash(), userId, createdAt: T0, expiresAt: at(3600) };
      await store.insertWebSession(session);
      expect(await store.findWebSession(session.tokenHash)).to.deep.equal(session);
      await store.deleteWebSession(session.tokenHash);
      expect(await store.findWebSession(session.tokenHash)).to.equal(null);
    });

    it('purges what has expired and keeps the rest', async () => {
      const g = grant();
      await store.insertGrant(g);
      const live = { tokenHash: hash(), grantId: g.id, createdAt: T0, expiresAt: at(100) };
      const dead = { tokenHash: hash(), grantId: g.id, createdAt: T0, expiresAt: at(10) };
      await store.insertAccessToken(live);
      await store.insertAccessToken(dead);
      const oldSession = { tokenHash: hash(), userId, createdAt: T0, expiresAt: at(10) };
      await store.insertWebSession(oldSession);
      const request = { handleHash: hash(), clientId, redirectUri: 'http://127.0.0.1:1/cb', state: 's', codeChallenge: 'c'.repeat(43), requestedScope: null, scope: 'mcp', resource: g.resource, createdAt: T0, expiresAt: at(10) };
      await store.insertAuthorizationRequest(request);
      await store.purgeExpired(at(50));
      expect(await store.findAccessToken(live.tokenHash)).to.not.equal(null);
      expect(await store.findAccessToken(dead.tokenHash)).to.equal(null);
      expect(await store.findWebSession(oldSession.tokenHash)).to.equal(null);
      expect(await store.findAuthorizationRequest(request.handleHash)).to.equal(null);
      expect(await store.findGrant(g.id)).to.not.equal(null);
    });

    it('rolls a failed transaction back entirely', async () => {
      const request = { handleHash: hash(), clientId, redirectUri: 'http://127.0.0.1:1/cb', state: null, codeChallenge: 'c'.repeat(43), requestedScope: null, scope: 'mcp', resource: 'r', createdAt: T0, expiresAt: at(1800) };
      await store.insertAuthorizationRequest(request);
      const g = grant();
      let caught: unknown;
      await store
        .transaction(async (tx) => {
          await tx.insertGrant(g);
          expect(await tx.deleteAuthorizationRequest(request.handleHash)).to.equal(true);
          throw new Error('boom');
        })
        .catch((error) => (caught = error));
      expect(String(caught)).to.match(/boom/);
      expect(await store.findGrant(g.id)).to.equal(null);
      expect(await store.findAuthorizationRequest(request.handleHash)).to.deep.equal(request);
      const committed = await store.transaction(async (tx) => {
        await tx.insertGrant(g);
        return tx.deleteAuthorizationRequest(request.handleHash);
      });
      expect(committed).to.equal(true);
      expect(await store.findGrant(g.id)).to.not.equal(null);
    });

    it('serializes transactions that change one grant', async () => {
      const g = grant({ refresh: { currentHash: '0', previousHash: null, previousRetryLeft: false, rotatedAt: null, rotationRequest: null } });
      await store.insertGrant(g);
      const bump = () =>
        store.transaction(async (tx) => {
          const current = (await tx.findGrant(g.id))!;
          await new Promise((resolve) => setTimeout(resolve, 20));
          await tx.updateRefreshChain(g.id, { ...current.refresh, currentHash: String(Number(current.refresh.currentHash) + 1) });
        });
      await Promise.all([bump(), bump(), bump()]);
      expect((await store.findGrant(g.id))!.refresh.currentHash).to.equal('3');
    });
  });
}
