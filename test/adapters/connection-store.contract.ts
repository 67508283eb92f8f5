import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { ConnectionRecord, ConnectionStore } from '../../application/ports/connection-store.js';

const record = (over: Partial<ConnectionRecord> = {}): ConnectionRecord => ({
  id: randomUUID(),
  ownerUserId: 'user-a',
  workspaceId: null,
  label: 'Warehouse',
  kind: 'postgres',
  url: 'postgres://reader:s3cret@db.example.com/sales',
  status: 'pending',
  lastTestedAt: null,
  lastError: null,
  createdAt: new Date('2024-01-01T00:00:00Z'),
  ...over,
});

/** What every ConnectionStore adapter must do: the same suite runs against memory and PostgreSQL. */
export function describeConnectionStoreContract(name: string, make: () => Promise<{ store: ConnectionStore; close(): Promise<void> }>) {
  describe(`ConnectionStore contract: ${name}`, () => {
    let store: ConnectionStore;
    let close: () => Promise<void>;
    beforeEach(async () => ({ store, close } = await make()));
    afterEach(async () => close());

    it('stores and finds a connection, URL included', async () => {
      const r = record();
      await store.insert(r);
      expect(await store.findById(r.id)).to.deep.equal(r);
      expect(await store.findById(randomUUID())).to.equal(null);
    });

    it('lists by scope: personal ones of one user, or one workspace\'s from any member', async () => {
      const mine = record({ createdAt: new Date('2024-01-01T00:00:00Z') });
      const mine2 = record({ createdAt: new Date('2024-01-02T00:00:00Z') });
      const theirs = record({ ownerUserId: 'user-b' });
      const team = record({ workspaceId: 'ws-1' });
      const teamByOther = record({ ownerUserId: 'user-b', workspaceId: 'ws-1' });
      for (const r of [mine2, theirs, team, mine, teamByOther]) await store.insert(r);
      expect((await store.list({ kind: 'personal', userId: 'user-a' })).map((r) => r.id)).to.deep.equal([mine.id, mine2.id]);
      expect((await store.list({ kind: 'workspace', workspaceId: 'ws-1' })).map((r) => r.id).sort()).to.deep.equal([team.id, teamByOther.id].sort());
      expect(await store.listAll()).to.have.length(5);
    });

    it('records test outcomes and deletes', async () => {
      const r = record();
      await store.insert(r);
      const testedAt = new Date('2024-02-01T00:00:00Z');
      await store.recordTest(r.id, { status: 'failing', testedAt, error: 'boom' });
      expect(await store.findById(r.id)).to.deep.include({ status: 'failing', lastTestedAt: testedAt, lastError: 'boom' });
      expect(await store.delete(r.id)).to.equal(true);
      expect(await store.delete(r.id)).to.equal(false);
      expect(await store.findById(r.id)).to.equal(null);
    });
  });
}
