import { randomBytes, randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { DomainError } from '../../domain/errors.js';
import type { AccountStore } from '../../application/ports/account-store.js';
import { aUser } from '../support/mothers.js';
import { refusal } from '../support/refusal.js';

export interface AccountStoreHarness {
  store: AccountStore;
  close(): Promise<void>;
}

/** A name no other test (or earlier run against the same database) uses. */
const unique = (prefix: string) => `${prefix}-${randomBytes(4).toString('hex')}`;

/** The behaviour every AccountStore adapter must share; run once per adapter. */
export function describeAccountStoreContract(name: string, makeStore: () => Promise<AccountStoreHarness>): void {
  describe(`AccountStore contract (${name})`, () => {
    let harness: AccountStoreHarness;
    let store: AccountStore;

    before(async () => {
      harness = await makeStore();
      store = harness.store;
    });

    after(async () => {
      await harness?.close();
    });

    const addUser = (handle = unique('u'), email = `${handle}@example.com`) => aUser(store, { handle, email });

    it('creates users and finds them by id, handle and email (case-insensitively)', async () => {
      const handle = unique('ada');
      const created = await store.createUser({ handle, email: `Ada.${handle}@Example.com`, passwordHash: 'hash', plan: 'pro' });
      expect(created.id).to.match(/^[0-9a-f-]{36}$/);
      expect(created).to.include({ handle, email: `Ada.${handle}@Example.com`, passwordHash: 'hash', plan: 'pro' });
      expect(created.createdAt).to.be.instanceOf(Date);
      expect(await store.findUserById(created.id)).to.deep.equal(created);
      expect(await store.findUserByHandle(handle)).to.deep.equal(created);
      expect(await store.findUserByEmail(`ada.${handle}@example.COM`)).to.deep.equal(created);
      expect(await store.findUserById(randomUUID())).to.equal(null);
      expect(await store.findUserById('not-a-uuid')).to.equal(null);
      expect(await store.findUserByHandle(unique('nobody'))).to.equal(null);
      expect(await store.findUserByEmail('nobody@example.com')).to.equal(null);
    });

    it('returns copies: changing a result changes nothing stored', async () => {
      const user = await addUser();
      const found = (await store.findUserById(user.id))!;
      found.plan = 'pro';
      found.handle = 'changed';
      expect(await store.findUserById(user.id)).to.deep.equal(user);
    });

    it('lists users in handle order and changes plans', async () => {
      const tag = randomBytes(3).toString('hex');
      const b = await addUser(`b-${tag}`);
      const a = await addUser(`a-${tag}`);
      const c = await addUser(`a0${tag}`);
      const listed = (await store.listUsers()).filter((u) => u.handle.includes(tag)).map((u) => u.handle);
      // Byte order: '-' sorts before '0', which sorts before letters.
      expect(listed).to.deep.equal([a.handle, c.handle, b.handle]);
      await store.setPlan(b.id, 'pro');
      expect((await store.findUserById(b.id))!.plan).to.equal('pro');
      await store.setPlan(b.id, 'free');
      expect((await store.findUserByHandle(b.handle))!.plan).to.equal('free');
    });

    it('refuses a taken handle, a handle taken by a workspace, and a registered email in any case', async () => {
      const user = await addUser();
      const sameHandle = await refusal(store.createUser({ handle: user.handle, email: `${unique('x')}@example.com`, passwordHash: null, plan: 'free' }));
      expect(sameHandle.code).to.equal('conflict');
      expect(sameHandle.message).to.equal(`handle "${user.handle}" is taken`);

      const workspace = await store.createWorkspace({ slug: unique('team'), name: 'Team' });
      const workspaceName = await refusal(addUser(workspace.slug));
      expect(workspaceName.code).to.equal('conflict');
      expect(workspaceName.message).to.equal(`handle "${workspace.slug}" is taken`);

      const shouted = user.email.toUpperCase();
      const sameEmail = await refusal(addUser(unique('other'), shouted));
      expect(sameEmail.code).to.equal('conflict');
      expect(sameEmail.message).to.equal(`email "${shouted}" is already registered`);
      expect(await store.findUserByHandle(workspace.slug)).to.equal(null);
    });

    it('creates workspaces and refuses slugs taken by a workspace or a user', async () => {
      const slug = unique('acme');
      const workspace = await store.createWorkspace({ slug, name: 'Acme Inc' });
      expect(workspace).to.include({ slug, name: 'Acme Inc' });
      expect(await store.findWorkspaceById(workspace.id)).to.deep.equal(workspace);
      expect(await store.findWorkspaceBySlug(slug)).to.deep.equal(workspace);
      expect(await store.findWorkspaceById(randomUUID())).to.equal(null);
      expect(await store.findWorkspaceBySlug(unique('none'))).to.equal(null);
      expect((await store.listWorkspaces()).map((w) => w.id)).to.include(workspace.id);

      const again = await refusal(store.createWorkspace({ slug, name: 'Other' }));
      expect([again.code, again.message]).to.deep.equal(['conflict', `workspace slug "${slug}" is taken`]);
      const user = await addUser();
      const userName = await refusal(store.createWorkspace({ slug: user.handle, name: 'Other' }));
      expect([userName.code, userName.message]).to.deep.equal(['conflict', `workspace slug "${user.handle}" is taken`]);
    });

    it('lists workspaces in slug order', async () => {
      const tag = randomBytes(3).toString('hex');
      const z = await store.createWorkspace({ slug: `z-${tag}`, name: 'Z' });
      const m = await store.createWorkspace({ slug: `m-${tag}`, name: 'M' });
      expect((await store.listWorkspaces()).filter((w) => w.slug.endsWith(tag)).map((w) => w.id)).to.deep.equal([m.id, z.id]);
    });

    it('adds memberships, updates the role in place, and lists a user\'s workspaces in slug order', async () => {
      const user = await addUser();
      const tag = randomBytes(3).toString('hex');
      const beta = await store.createWorkspace({ slug: `beta-${tag}`, name: 'Beta' });
      const alpha = await store.createWorkspace({ slug: `alpha-${tag}`, name: 'Alpha' });
      expect(await store.findMembership(alpha.id, user.id)).to.equal(null);
      expect(await store.addMember(beta.id, user.id, 'member')).to.deep.equal({ workspaceId: beta.id, userId: user.id, role: 'member' });
      await store.addMember(alpha.id, user.id, 'member');
      await store.addMember(alpha.id, user.id, 'admin');
      expect(await store.findMembership(alpha.id, user.id)).to.deep.equal({ workspaceId: alpha.id, userId: user.id, role: 'admin' });
      expect(await store.listMemberships(user.id)).to.deep.equal([
        { workspace: alpha, role: 'admin' },
        { workspace: beta, role: 'member' },
      ]);
      expect(await store.listMemberships((await addUser()).id)).to.deep.equal([]);
    });

    it('lists a workspace\'s members with their roles in handle order', async () => {
      const tag = randomBytes(3).toString('hex');
      const zed = await addUser(`zed-${tag}`);
      const amy = await addUser(`amy-${tag}`);
      const workspace = await store.createWorkspace({ slug: unique('ws'), name: 'W' });
      expect(await store.listMembers(workspace.id)).to.deep.equal([]);
      await store.addMember(workspace.id, zed.id, 'admin');
      await store.addMember(workspace.id, amy.id, 'member');
      expect(await store.listMembers(workspace.id)).to.deep.equal([
        { user: amy, role: 'member' },
        { user: zed, role: 'admin' },
      ]);
    });

    it('refuses a membership for an unknown user or workspace', async () => {
      const user = await addUser();
      const workspace = await store.createWorkspace({ slug: unique('ws'), name: 'W' });
      expect((await refusal(store.addMember(randomUUID(), user.id, 'member'))).code).to.equal('not_found');
      expect((await refusal(store.addMember(workspace.id, randomUUID(), 'member'))).code).to.equal('not_found');
      expect(await store.listMemberships(user.id)).to.deep.equal([]);
    });

    it('tells who a subdomain belongs to', async () => {
      const user = await addUser();
      const workspace = await store.createWorkspace({ slug: unique('org'), name: 'Org' });
      expect(await store.findSubdomainOwner(user.handle)).to.deep.equal({ kind: 'user', user });
      expect(await store.findSubdomainOwner(workspace.slug)).to.deep.equal({ kind: 'workspace', workspace });
      expect(await store.findSubdomainOwner(unique('nobody'))).to.equal(null);
    });

    describe('linked upstream sign-ins', () => {
      const identity = () => ({ issuer: `https://${unique('idp')}.example.com`, subject: unique('sub') });

      it('links a sign-in to a user, finds the user by it, and links again idempotently', async () => {
        const user = await addUser();
        const other = await addUser();
        const first = identity();
        expect(await store.findUserByIdentity(first.issuer, first.subject)).to.equal(null);
        await store.linkIdentity(first, user.id);
        await store.linkIdentity(first, user.id);
        expect(await store.findUserByIdentity(first.issuer, first.subject)).to.deep.equal(user);
        // Issuer and subject together are the key: the same subject at another issuer is someone else.
        expect(await store.findUserByIdentity(`${first.issuer}/other`, first.subject)).to.equal(null);
        const second = { issuer: first.issuer, subject: unique('sub') };
        await store.linkIdentity(second, user.id);
        expect(await store.findUserByIdentity(second.issuer, second.subject)).to.deep.equal(user);
        expect(await store.findUserByIdentity(first.issuer, first.subject)).to.deep.equal(user);
        const taken = await refusal(store.linkIdentity(first, other.id));
        expect([taken.code, taken.message]).to.deep.equal(['conflict', 'this sign-in is already linked to another account']);
        expect(await store.findUserByIdentity(first.issuer, first.subject)).to.deep.equal(user);
        const bySubject = (a: { subject: string }, b: { subject: string }) => a.subject.localeCompare(b.subject);
        expect((await store.identitiesOf(user.id)).sort(bySubject)).to.deep.equal([first, second].sort(bySubject));
        expect(await store.identitiesOf(other.id)).to.deep.equal([]);
        expect(await store.identitiesOf('not-a-uuid')).to.deep.equal([]);
      });

      it('refuses to link a sign-in to an unknown user', async () => {
        expect((await refusal(store.linkIdentity(identity(), randomUUID()))).code).to.equal('not_found');
        expect((await refusal(store.linkIdentity(identity(), 'not-a-uuid'))).code).to.equal('not_found');
      });

      it('creates a user already linked, and creates nothing when the sign-in is linked elsewhere', async () => {
        const linked = identity();
        const handle = unique('oidc');
        const created = await store.createUser({ handle, email: `${handle}@example.com`, passwordHash: null, plan: 'free', identity: linked });
        expect(created).to.include({ handle, passwordHash: null, plan: 'free' });
        expect(created).to.not.have.property('identity');
        expect(await store.findUserByIdentity(linked.issuer, linked.subject)).to.deep.equal(created);
        const again = unique('oidc');
        const refused = await refusal(store.createUser({ handle: again, email: `${again}@example.com`, passwordHash: null, plan: 'free', identity: linked }));
        expect(refused.code).to.equal('conflict');
        expect(await store.findUserByHandle(again)).to.equal(null);
      });

      it('lets exactly one of concurrent links of one sign-in win', async () => {
        const users = await Promise.all(Array.from({ length: 4 }, () => addUser()));
        const contested = identity();
        const attempts = await Promise.allSettled(users.map((u) => store.linkIdentity(contested, u.id)));
        expect(attempts.filter((a) => a.status === 'fulfilled')).to.have.length(1);
        const winner = users[attempts.findIndex((a) => a.status === 'fulfilled')]!;
        expect(await store.findUserByIdentity(contested.issuer, contested.subject)).to.deep.equal(winner);
      });
    });

    it('lets exactly one of many concurrent claims on one name win', async () => {
      const name = unique('race');
      const attempts = await Promise.allSettled([
        ...Array.from({ length: 6 }, (_, i) => store.createUser({ handle: name, email: `${name}-${i}@example.com`, passwordHash: null, plan: 'free' })),
        ...Array.from({ length: 6 }, () => store.createWorkspace({ slug: name, name: 'Race' })),
      ]);
      const won = attempts.filter((a) => a.status === 'fulfilled');
      const lost = attempts.filter((a): a is PromiseRejectedResult => a.status === 'rejected');
      expect(won).to.have.length(1);
      expect(lost.map((a) => (a.reason as DomainError).code)).to.deep.equal(Array(11).fill('conflict'));
      expect(await store.findSubdomainOwner(name)).to.not.equal(null);
    });
  });
}
