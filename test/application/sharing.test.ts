import { expect } from 'chai';
import { PublishDashboard } from '../../application/dashboards/publish-dashboard.js';
import { AccountStore } from '../../application/ports/account-store.js';
import { ManageShareLinks } from '../../application/sharing/manage-share-links.js';
import { DomainError } from '../../domain/errors.js';
import { buildContainer, type AppContainer } from '../../shells/container.js';
import { aPrincipal, aUser, aWorkspace, workspaceLock } from '../support/mothers.js';
import { testSettings } from '../support/settings.js';

async function refusal(work: Promise<unknown>): Promise<DomainError> {
  try {
    await work;
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

/** Who may manage share links, and the refusals, on the memory adapters. */
describe('application: managing share links', () => {
  let app: AppContainer;
  let links: ManageShareLinks;
  const ids: Record<string, string> = {};

  before(async () => {
    app = await buildContainer(testSettings(), { storage: 'memory' });
    links = app.container.get(ManageShareLinks);
    const accounts = app.container.get<AccountStore>(AccountStore);
    const [ada, bob, cyd] = [await aUser(accounts, { handle: 'ada' }), await aUser(accounts, { handle: 'bob' }), await aUser(accounts, { handle: 'cyd' })];
    const acme = await aWorkspace(accounts, { slug: 'acme' });
    await accounts.addMember(acme.id, ada.id, 'admin');
    await accounts.addMember(acme.id, cyd.id, 'member');
    Object.assign(ids, { ada: ada.id, bob: bob.id, cyd: cyd.id });
    const publish = app.container.get(PublishDashboard);
    await publish.execute(aPrincipal(ada.id), { path: 'sales', body: '<p>sales</p>' });
    await publish.execute(aPrincipal(ada.id, { lock: workspaceLock(acme) }), { path: 'plan', body: '<p>plan</p>' });
  });

  after(() => app?.close());

  const person = (name: string) => ({ kind: 'person' as const, userId: ids[name]! });

  it('lets the owner and a workspace admin manage links, and no one else: the same not-found as a missing dashboard', async () => {
    const own = await links.create(person('ada'), { ownerName: 'ada' }, 'sales', { label: 'mine' });
    expect(own.token).to.match(/^[A-Za-z0-9_-]{43}$/);
    expect(own.subdomain).to.equal('ada');
    const admin = await links.create(person('ada'), { ownerName: 'acme' }, 'plan', {});
    const missing = await refusal(links.create(person('ada'), { ownerName: 'ada' }, 'nope', {}));
    expect(missing.code).to.equal('not_found');
    for (const [who, owner, slug] of [['bob', 'ada', 'sales'], ['bob', 'acme', 'plan'], ['cyd', 'acme', 'plan'], ['cyd', 'ada', 'sales']] as const) {
      const create = await refusal(links.create(person(who), { ownerName: owner }, slug, {}));
      const list = await refusal(links.list(person(who), { ownerName: owner }, slug));
      expect([create.code, create.message, list.message], `${who} on ${owner}/${slug}`).to.deep.equal(['not_found', missing.message, missing.message]);
    }
    for (const link of [own, admin]) {
      for (const who of ['bob', 'cyd']) {
        for (const change of [links.pause, links.resume, links.revoke]) {
          const refused = await refusal(change.call(links, person(who), link.link.id));
          expect([refused.code, refused.message]).to.deep.equal(['not_found', 'No such share link']);
        }
      }
    }
    expect((await links.pause(person('ada'), admin.link.id)).status).to.equal('paused');
    expect((await links.resume(person('ada'), admin.link.id)).status).to.equal('active');
    expect((await links.list(person('ada'), { ownerName: 'acme' }, 'plan')).map((l) => l.link.id)).to.deep.equal([admin.link.id]);
    await links.revoke(person('ada'), admin.link.id);
    expect(await links.list(person('ada'), { ownerName: 'acme' }, 'plan')).to.deep.equal([]);
  });

  it('refuses an unknown pin, both expiry forms at once, and a malformed link id', async () => {
    const pin = await refusal(links.create(person('ada'), { ownerName: 'ada' }, 'sales', { pinnedVersionId: '00000000-0000-4000-8000-000000000000' }));
    expect(pin.message).to.equal('No version "00000000-0000-4000-8000-000000000000" of this dashboard');
    const both = await refusal(links.create(person('ada'), { ownerName: 'ada' }, 'sales', { expiresAt: new Date(Date.now() + 60_000), expiresInMs: 60_000 }));
    expect(both.message).to.equal('give an expiry as a date or as a duration, not both');
    expect((await refusal(links.pause(person('ada'), 'not-a-uuid'))).message).to.equal('No such share link');
  });

  it('lets the operator list every link of an owner, and counts the active ones', async () => {
    const listed = await links.list({ kind: 'operator' }, { owner: 'ada' });
    expect(listed.every((l) => l.slug === 'sales' && l.subdomain === 'ada')).to.equal(true);
    const first = listed[0]!;
    const dashboard = { id: first.link.dashboardId } as Parameters<ManageShareLinks['activeCount']>[0];
    const before = await links.activeCount({ ...dashboard, owner: { kind: 'user', id: ids.ada! } });
    await links.pause({ kind: 'operator' }, first.link.id);
    expect(await links.activeCount({ ...dashboard, owner: { kind: 'user', id: ids.ada! } })).to.equal(before - 1);
  });
});
