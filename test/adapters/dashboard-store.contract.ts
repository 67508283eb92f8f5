import { createHash, randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { OwnerRef } from '../../domain/scope.js';
import type { DashboardRecord, DashboardStore, DashboardWrites, PublishState, VersionRecord } from '../../application/ports/dashboard-store.js';
import { AUTOMATIC_SNAPSHOTS_KEPT, nextVersionSeq, snapshotsToPrune } from '../../domain/versions.js';
import { isRefreshableSpec } from '../../domain/dashboard-spec.js';
import { refusal } from '../support/refusal.js';
import { aDashboard } from '../support/mothers.js';
import { DomainError } from '../../domain/errors.js';

export interface DashboardStoreHarness {
  store: DashboardStore;
  close(): Promise<void>;
}

const user = (): OwnerRef => ({ kind: 'user', id: randomUUID() });
const sha = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const at = (seconds: number) => new Date(Date.UTC(2025, 0, 1, 0, 0, seconds));

const dashboard = (owner: OwnerRef, slug: string, extra: Partial<DashboardRecord> = {}): DashboardRecord =>
  aDashboard(owner, { slug, createdBy: randomUUID(), createdAt: at(0), updatedAt: at(0), ...extra });

function version(dashboardId: string, seq: number, extra: Partial<VersionRecord> = {}): VersionRecord {
  return {
    id: randomUUID(),
    dashboardId,
    seq,
    name: null,
    createdAt: at(seq),
    createdBy: randomUUID(),
    files: { 'index.html': { sha256: 'a'.repeat(64), size: 5, contentType: 'text/html; charset=utf-8' } },
    spec: null,
    ...extra,
  };
}

/** The behaviour every DashboardStore adapter must share; run once per adapter. */
const summary = ({ spec, ...rest }: VersionRecord) => ({ ...rest, kind: spec === null ? 'body' : 'spec', refreshable: isRefreshableSpec(spec) });

export function describeDashboardStoreContract(name: string, makeStore: () => Promise<DashboardStoreHarness>): void {
  describe(`DashboardStore contract (${name})`, () => {
    let harness: DashboardStoreHarness;
    let store: DashboardStore;

    before(async () => {
      harness = await makeStore();
      store = harness.store;
    });

    after(async () => {
      await harness?.close();
    });

    /** A dashboard with its first version, committed. */
    async function publish(owner: OwnerRef, slug: string, extra: Partial<DashboardRecord> = {}) {
      const record = dashboard(owner, slug, extra);
      const first = version(record.id, 1, { id: record.currentVersionId });
      await store.transaction(owner, async (tx) => {
        await tx.insertDashboard(record);
        await tx.insertVersion(first);
      });
      return { record, first };
    }

    it('inserts a dashboard and finds it by owner and slug or by id, as a copy', async () => {
      const owner = user();
      const { record } = await publish(owner, 'sales', { tags: ['q1', 'finance'], chart: 'bar', visibility: 'private', connection: 'c-1' });
      expect(await store.findDashboard(owner, 'sales')).to.deep.equal(record);
      expect(await store.findDashboardById(record.id)).to.deep.equal(record);
      expect(await store.findDashboard(user(), 'sales')).to.equal(null);
      expect(await store.findDashboard({ kind: 'workspace', id: owner.id }, 'sales')).to.equal(null);
      expect(await store.findDashboardById(randomUUID())).to.equal(null);
      expect(await store.findDashboardById('not-a-uuid')).to.equal(null);
      const found = (await store.findDashboard(owner, 'sales'))!;
      found.tags.push('mutated');
      found.owner.id = randomUUID();
      expect(await store.findDashboardById(record.id)).to.deep.equal(record);
    });

    it('updates only the given fields and refuses a slug another dashboard of the owner uses', async () => {
      const owner = user();
      const { record } = await publish(owner, 'one');
      await publish(owner, 'two');
      const newVersion = randomUUID();
      await store.transaction(owner, (tx) =>
        tx.updateDashboard(record.id, { name: 'Renamed', tags: ['x'], chart: 'line', updatedAt: at(30), currentVersionId: newVersion }),
      );
      expect(await store.findDashboardById(record.id)).to.deep.equal({
        ...record,
        name: 'Renamed',
        tags: ['x'],
        chart: 'line',
        updatedAt: at(30),
        currentVersionId: newVersion,
      });
      const clash = await refusal(store.transaction(owner, (tx) => tx.updateDashboard(record.id, { slug: 'two' })));
      expect(clash.code).to.equal('conflict');
      const duplicate = await refusal(store.transaction(owner, (tx) => tx.insertDashboard(dashboard(owner, 'two'))));
      expect(duplicate.code).to.equal('conflict');
      expect((await store.findDashboardById(record.id))!.slug).to.equal('one');
      // Another owner may use the same slug.
      await publish(user(), 'two');
    });

    it('lists one owner\'s dashboards in byte order of slug, with a keyset, a tag and an exact slug', async () => {
      const owner = user();
      for (const [slug, tags] of [['b', ['t']], ['a-b', []], ['ab', ['t', 'u']], ['a0', ['u']], ['c', ['t']]] as const) {
        await publish(owner, slug, { tags: [...tags] });
      }
      await publish(user(), 'aa', { tags: ['t'] });
      const slugs = async (query: Parameters<DashboardStore['list']>[1]) => (await store.list(owner, query)).map((d) => d.slug);
      expect(await slugs({ limit: 10 })).to.deep.equal(['a-b', 'a0', 'ab', 'b', 'c']);
      expect(await slugs({ limit: 2 })).to.deep.equal(['a-b', 'a0']);
      expect(await slugs({ limit: 2, afterSlug: 'a0' })).to.deep.equal(['ab', 'b']);
      expect(await slugs({ limit: 2, afterSlug: 'b' })).to.deep.equal(['c']);
      expect(await slugs({ limit: 2, afterSlug: 'c' })).to.deep.equal([]);
      expect(await slugs({ limit: 10, tag: 't' })).to.deep.equal(['ab', 'b', 'c']);
      expect(await slugs({ limit: 1, tag: 't', afterSlug: 'ab' })).to.deep.equal(['b']);
      expect(await slugs({ limit: 10, tag: 'nope' })).to.deep.equal([]);
      expect(await slugs({ limit: 10, slug: 'ab' })).to.deep.equal(['ab']);
      expect(await slugs({ limit: 10, slug: 'aa' })).to.deep.equal([]);
      const [first] = await store.list(owner, { limit: 1 });
      expect(first).to.deep.equal(await store.findDashboard(owner, 'a-b'));
    });

    it('keeps versions with files and spec, lists them newest first, names and deletes them', async () => {
      const owner = user();
      const { record, first } = await publish(owner, 'versions');
      const spec = { title: 'T', panels: [{ id: 'p', type: 'text', text: 'hi' }], data: { q: [{ n: 1.5, s: 'x', z: null }] } };
      const third = version(record.id, 3, { spec, name: 'release' });
      const second = version(record.id, 2, {
        files: {
          'index.html': { sha256: 'b'.repeat(64), size: 10, contentType: 'text/html; charset=utf-8' },
          'data.json': { sha256: 'c'.repeat(64), size: 2, contentType: 'application/json' },
        },
      });
      await store.transaction(owner, async (tx) => {
        await tx.insertVersion(third);
        await tx.insertVersion(second);
      });
      expect(await store.listVersions(record.id)).to.deep.equal([third, second, first]);
      expect(await store.getVersion(record.id, third.id)).to.deep.equal(third);
      expect(await store.getVersion(randomUUID(), third.id)).to.equal(null);
      expect(await store.getVersion(record.id, randomUUID())).to.equal(null);
      expect(await store.listVersionSummaries(record.id)).to.deep.equal([third, second, first].map(summary));
      expect(await store.listVersionSummaries(randomUUID())).to.deep.equal([]);
      expect(await store.listVersionSummaries('not-a-uuid')).to.deep.equal([]);
      expect(await store.getVersionSummary(record.id, second.id)).to.deep.equal(summary(second));
      expect(await store.getVersionSummary(record.id, third.id)).to.deep.equal(summary(third));
      expect(await store.getVersionSummary(randomUUID(), third.id)).to.equal(null);
      expect(await store.getVersionSummary(record.id, 'not-a-uuid')).to.equal(null);
      // Inside a transaction too (update_dashboard and rename_dashboard read it there).
      expect(await store.transaction(owner, (tx) => tx.getVersionSummary(record.id, third.id))).to.deep.equal(summary(third));
      expect(await store.transaction(owner, (tx) => tx.getVersionSummary(randomUUID(), third.id))).to.equal(null);

      const clash = await refusal(store.transaction(owner, (tx) => tx.insertVersion(version(record.id, 2))));
      expect(clash.code).to.equal('conflict');
      expect((await refusal(store.transaction(owner, (tx) => tx.insertVersion(version(randomUUID(), 1))))).code).to.equal('not_found');

      await store.transaction(owner, async (tx) => {
        await tx.setVersionName(second.id, 'kept');
        await tx.setVersionName(third.id, null);
      });
      expect((await store.listVersions(record.id)).map((v) => v.name)).to.deep.equal([null, 'kept', null]);
      await store.transaction(owner, (tx) => tx.deleteVersions([first.id, third.id]));
      expect((await store.listVersions(record.id)).map((v) => v.id)).to.deep.equal([second.id]);
      await store.transaction(owner, (tx) => tx.deleteVersions([]));
      expect(await store.listVersions(record.id)).to.have.length(1);
    });

    it('reads a version outline: its summary with the spec\'s stored parameters, null for a body or a spec without them', async () => {
      const owner = user();
      const { record, first } = await publish(owner, 'outline');
      const params = [{ id: 'region', type: 'select', label: 'Region', options: ['North', 'South'], default: 'North' }];
      const withParams = version(record.id, 2, { spec: { title: 'T', params, panels: [{ id: 'p', type: 'text', text: 'hi' }] } });
      const without = version(record.id, 3, { spec: { title: 'T', panels: [{ id: 'p', type: 'text', text: 'hi' }] } });
      await store.transaction(owner, async (tx) => {
        await tx.insertVersion(withParams);
        await tx.insertVersion(without);
      });
      expect(await store.getVersionOutline(record.id, withParams.id)).to.deep.equal({ ...summary(withParams), params });
      expect(await store.getVersionOutline(record.id, without.id)).to.deep.equal({ ...summary(without), params: null });
      expect(await store.getVersionOutline(record.id, first.id)).to.deep.equal({ ...summary(first), params: null });
      expect(await store.getVersionOutline(randomUUID(), withParams.id)).to.equal(null);
      expect(await store.getVersionOutline(record.id, 'not-a-uuid')).to.equal(null);
    });

    it('inserts, finds, deletes and moves aliases; deleting a dashboard takes its versions and aliases', async () => {
      const owner = user();
      const old = await publish(owner, 'old');
      const next = await publish(owner, 'new');
      await store.transaction(owner, async (tx) => {
        await tx.insertAlias({ owner, slug: 'older', dashboardId: old.record.id });
        await tx.insertAlias({ owner, slug: 'oldest', dashboardId: old.record.id });
        await tx.insertAlias({ owner, slug: 'gone', dashboardId: next.record.id });
      });
      expect(await store.findAlias(owner, 'older')).to.deep.equal({ owner, slug: 'older', dashboardId: old.record.id });
      expect(await store.findAlias(user(), 'older')).to.equal(null);
      expect((await store.listAliases(old.record.id)).map((a) => a.slug)).to.deep.equal(['older', 'oldest']);
      expect(await store.listAliases(randomUUID())).to.deep.equal([]);
      const duplicate = await refusal(store.transaction(owner, (tx) => tx.insertAlias({ owner, slug: 'older', dashboardId: next.record.id })));
      expect(duplicate.code).to.equal('conflict');

      await store.transaction(owner, (tx) => tx.deleteAlias(owner, 'gone'));
      expect(await store.findAlias(owner, 'gone')).to.equal(null);
      await store.transaction(owner, (tx) => tx.moveAliases(old.record.id, next.record.id));
      expect((await store.findAlias(owner, 'older'))!.dashboardId).to.equal(next.record.id);
      expect((await store.findAlias(owner, 'oldest'))!.dashboardId).to.equal(next.record.id);

      await store.transaction(owner, (tx) => tx.deleteDashboard(next.record.id));
      expect(await store.findDashboardById(next.record.id)).to.equal(null);
      expect(await store.listVersions(next.record.id)).to.deep.equal([]);
      expect(await store.findAlias(owner, 'older')).to.equal(null);
      expect(await store.findDashboardById(old.record.id)).to.deep.equal(old.record);
    });

    it('stores files by content, once', async () => {
      const owner = user();
      const bytes = new TextEncoder().encode(`<h1>${randomUUID()}</h1>`);
      const hash = sha(bytes);
      expect(await store.getFile(hash)).to.equal(null);
      await store.transaction(owner, async (tx) => {
        await tx.putFile(hash, bytes);
        await tx.putFile(hash, bytes);
      });
      await store.transaction(user(), (tx) => tx.putFile(hash, Buffer.from(bytes)));
      const read = await store.getFile(hash);
      expect(read).to.be.instanceOf(Uint8Array);
      expect(Buffer.from(read!).equals(Buffer.from(bytes))).to.equal(true);
      read![0] = 0;
      expect(Buffer.from((await store.getFile(hash))!).equals(Buffer.from(bytes))).to.equal(true);
      const empty = new Uint8Array(0);
      await store.transaction(owner, (tx) => tx.putFile(sha(empty), empty));
      expect((await store.getFile(sha(empty)))!.byteLength).to.equal(0);
    });

    it('rolls back everything a transaction did when its work throws', async () => {
      const owner = user();
      const kept = await publish(owner, 'kept');
      const bytes = new TextEncoder().encode(randomUUID());
      const record = dashboard(owner, 'doomed');
      const failure = new Error('boom');
      let thrown: unknown;
      try {
        await store.transaction(owner, async (tx) => {
          await tx.putFile(sha(bytes), bytes);
          await tx.insertDashboard(record);
          await tx.insertVersion(version(record.id, 1));
          await tx.insertAlias({ owner, slug: 'doomed-alias', dashboardId: kept.record.id });
          await tx.updateDashboard(kept.record.id, { name: 'changed' });
          await tx.deleteVersions([kept.first.id]);
          expect(await tx.findDashboard(owner, 'doomed')).to.not.equal(null);
          throw failure;
        });
      } catch (error) {
        thrown = error;
      }
      expect(thrown).to.equal(failure);
      expect(await store.findDashboard(owner, 'doomed')).to.equal(null);
      expect(await store.listVersions(record.id)).to.deep.equal([]);
      expect(await store.getFile(sha(bytes))).to.equal(null);
      expect(await store.findAlias(owner, 'doomed-alias')).to.equal(null);
      expect(await store.findDashboardById(kept.record.id)).to.deep.equal(kept.record);
      expect(await store.listVersions(kept.record.id)).to.deep.equal([kept.first]);
      expect(await store.list(owner, { limit: 10 })).to.deep.equal([kept.record]);
    });

    it('returns what the work returns', async () => {
      expect(await store.transaction(user(), async () => 42)).to.equal(42);
    });

    it('serializes 50 concurrent transactions of one owner: each reads the newest seq and adds the next, none lost', async () => {
      const owner = user();
      const record = dashboard(owner, 'counter');
      await store.transaction(owner, (tx) => tx.insertDashboard(record));
      const next = async (tx: DashboardWrites) => {
        const [newest] = await tx.listVersions(record.id);
        // Give other transactions every chance to interleave between the read and the write.
        await new Promise((resolve) => setImmediate(resolve));
        await tx.findDashboard(owner, 'counter');
        const created = version(record.id, (newest?.seq ?? 0) + 1);
        await tx.insertVersion(created);
        await tx.updateDashboard(record.id, { currentVersionId: created.id });
        return created.seq;
      };
      const seqs = await Promise.all(Array.from({ length: 50 }, () => store.transaction(owner, next)));
      expect([...seqs].sort((a, b) => a - b)).to.deep.equal(Array.from({ length: 50 }, (_, i) => i + 1));
      const listed = await store.listVersions(record.id);
      expect(listed.map((v) => v.seq)).to.deep.equal(Array.from({ length: 50 }, (_, i) => 50 - i));
      expect((await store.findDashboardById(record.id))!.currentVersionId).to.equal(listed[0].id);
    });

    it('lists whether each current version refreshes by the spec rule, without the spec, and follows a new version', async () => {
      const owner = user();
      const specs: Record<string, unknown> = {
        queries: { title: 'Q', queries: { n: { sql: 'SELECT 1 AS n' } }, panels: [] },
        'no-queries': { title: 'S', data: { rows: [{ n: 1 }] }, panels: [] },
        'empty-queries': { title: 'E', queries: {}, panels: [] },
        'null-queries': { title: 'N', queries: null, panels: [] },
        'array-queries': { title: 'A', queries: [{ sql: 'SELECT 1' }], panels: [] },
        body: null,
      };
      for (const [slug, spec] of Object.entries(specs)) {
        const record = dashboard(owner, slug);
        await store.transaction(owner, async (tx) => {
          await tx.insertDashboard(record);
          await tx.insertVersion(version(record.id, 1, { id: record.currentVersionId, spec }));
        });
      }
      const refreshable = async () =>
        Object.fromEntries((await store.listWithCurrent(owner, { limit: 10 })).map(({ dashboard, current }) => [dashboard.slug, current!.refreshable]));
      const expected = Object.fromEntries(Object.entries(specs).map(([slug, spec]) => [slug, isRefreshableSpec(spec)]));
      expect(expected).to.deep.equal({ queries: true, 'no-queries': false, 'empty-queries': false, 'null-queries': false, 'array-queries': false, body: false });
      expect(await refreshable()).to.deep.equal(expected);
      for (const { dashboard } of await store.listWithCurrent(owner, { limit: 10 })) {
        const [versions, current] = await Promise.all([store.listVersionSummaries(dashboard.id), store.getVersionSummary(dashboard.id, dashboard.currentVersionId)]);
        expect([versions[0]!.refreshable, current!.refreshable]).to.deep.equal([expected[dashboard.slug], expected[dashboard.slug]]);
      }
      for (const { current } of await store.listWithCurrent(owner, { limit: 10 })) expect(current).to.have.all.keys('id', 'files', 'refreshable');
      // A new current version with queries turns a static dashboard refreshable.
      const body = (await store.findDashboard(owner, 'body'))!;
      const next = version(body.id, 2, { spec: specs.queries });
      await store.transaction(owner, async (tx) => {
        await tx.insertVersion(next);
        await tx.updateDashboard(body.id, { currentVersionId: next.id });
      });
      expect((await refreshable()).body).to.equal(true);
    });

    it('counts an owner\'s versions per dashboard and UTC day in slug order, newest day first, and no one else\'s', async () => {
      const owner = user();
      const day = (iso: string) => new Date(iso);
      // Versions by seq: the days go back and forth, so "newest first" means by seq, not by date.
      const published: Record<string, string[]> = {
        zeta: ['2026-11-20T23:59:59.999Z', '2026-11-21T00:00:00.000Z', '2026-11-21T12:00:00.000Z'],
        alpha: ['2026-11-01T10:00:00.000Z', '2026-11-03T10:00:00.000Z', '2026-11-01T11:00:00.000Z', '2026-11-03T09:00:00.000Z'],
        mid: ['2026-11-05T10:00:00.000Z'],
      };
      for (const [slug, times] of Object.entries(published)) {
        const record = dashboard(owner, slug);
        await store.transaction(owner, async (tx) => {
          await tx.insertDashboard(record);
          for (const [i, time] of times.entries()) {
            const id = i === times.length - 1 ? record.currentVersionId : randomUUID();
            await tx.insertVersion(version(record.id, i + 1, { id, createdAt: day(time) }));
          }
        });
      }
      await publish(user(), 'alpha');
      const ids = Object.fromEntries(await Promise.all(Object.keys(published).map(async (slug) => [slug, (await store.findDashboard(owner, slug))!.id])));
      expect(await store.publishDays(owner)).to.deep.equal([
        { dashboardId: ids.alpha, day: '2026-11-03', count: 2 },
        { dashboardId: ids.alpha, day: '2026-11-01', count: 2 },
        { dashboardId: ids.mid, day: '2026-11-05', count: 1 },
        { dashboardId: ids.zeta, day: '2026-11-21', count: 2 },
        { dashboardId: ids.zeta, day: '2026-11-20', count: 1 },
      ]);
      expect(await store.publishDays(user())).to.deep.equal([]);
    });

    it('runs transactions of different owners side by side without mixing their writes', async () => {
      const owners = Array.from({ length: 5 }, user);
      await Promise.all(owners.map((owner) => publish(owner, 'same-slug')));
      for (const owner of owners) expect((await store.list(owner, { limit: 10 })).map((d) => d.owner)).to.deep.equal([owner]);
    });

    it('lists each dashboard with its current version in one read, and follows tag and slug changes in the tag filter', async () => {
      const owner = user();
      for (const [slug, tags] of [['b', ['t']], ['a-b', []], ['ab', ['t', 'u', 't']], ['a0', ['u']], ['c', ['t']]] as const) {
        await publish(owner, slug, { tags: [...tags] });
      }
      await publish(user(), 'aa', { tags: ['t'] });
      const queries = [
        { limit: 10 },
        { limit: 2, afterSlug: 'a0' },
        { limit: 10, tag: 't' },
        { limit: 1, tag: 't', afterSlug: 'ab' },
        { limit: 10, tag: 'nope' },
        { limit: 10, slug: 'ab' },
        { limit: 10, slug: 'ab', tag: 'u' },
      ];
      for (const query of queries) {
        const listed = await store.listWithCurrent(owner, query);
        expect(listed.map((l) => l.dashboard)).to.deep.equal(await store.list(owner, query));
        for (const { dashboard, current } of listed) {
          const version = (await store.getVersion(dashboard.id, dashboard.currentVersionId))!;
          expect(current).to.deep.equal({ id: version.id, files: version.files, refreshable: false });
        }
      }
      const slugs = async (tag: string) => (await store.list(owner, { limit: 10, tag })).map((d) => d.slug);
      const b = (await store.findDashboard(owner, 'b'))!;
      await store.transaction(owner, (tx) => tx.updateDashboard(b.id, { slug: 'bb', tags: ['u', 'v'] }));
      expect(await slugs('t')).to.deep.equal(['ab', 'c']);
      expect(await slugs('u')).to.deep.equal(['a0', 'ab', 'bb']);
      expect(await slugs('v')).to.deep.equal(['bb']);
      await store.transaction(owner, (tx) => tx.deleteDashboard(b.id));
      expect(await slugs('v')).to.deep.equal([]);
    });

    describe('publish', () => {
      const bytesOf = (text: string) => new TextEncoder().encode(text);
      const entry = (text: string) => ({ sha256: sha(bytesOf(text)), size: bytesOf(text).byteLength, contentType: 'text/html; charset=utf-8' });

      /** Adds one file to the slug's current manifest, as a body publish does. */
      function addFile(owner: OwnerRef, slug: string, filename: string, text: string, seen: PublishState[] = [], bytes = bytesOf(text)) {
        return store.publish(owner, slug, [{ sha256: sha(bytes), bytes }], (state) => {
          seen.push(state);
          const now = new Date();
          const base = state.dashboard ?? dashboard(owner, slug, { createdAt: now });
          const version = {
            id: randomUUID(),
            dashboardId: base.id,
            name: null,
            createdAt: now,
            createdBy: randomUUID(),
            files: { ...(state.current?.files ?? {}), [filename]: entry(text) },
            spec: null,
          };
          return {
            write: { dashboard: { ...base, currentVersionId: version.id, updatedAt: now }, isNew: state.dashboard === null, version },
            result: version.id,
          };
        });
      }

      it('creates, then republishes: new versions numbered in order, the row rewritten, the bytes stored', async () => {
        const owner = user();
        const seen: PublishState[] = [];
        const first = await addFile(owner, 'page', 'index.html', `<p>${randomUUID()}</p>`, seen);
        expect(seen.at(-1)).to.deep.equal({ alias: null, dashboard: null, current: null });
        const created = (await store.findDashboard(owner, 'page'))!;
        expect(created.currentVersionId).to.equal(first);
        const text = `{"n":${Math.random()}}`;
        const second = await addFile(owner, 'page', 'data.json', text, seen);
        const read = seen.at(-1)!;
        expect(read.dashboard).to.deep.equal(created);
        expect(read.current).to.deep.equal(await store.getVersion(created.id, first));
        const versions = await store.listVersions(created.id);
        expect(versions.map((v) => [v.id, v.seq])).to.deep.equal([[second, 2], [first, 1]]);
        expect(Object.keys(versions[0].files).sort()).to.deep.equal(['data.json', 'index.html']);
        expect((await store.findDashboard(owner, 'page'))!.currentVersionId).to.equal(second);
        expect(Buffer.from((await store.getFile(sha(bytesOf(text))))!).toString()).to.equal(text);
      });

      it("keeps nothing of the caller's bytes once it settles (a large upload's buffer is lent to another request after)", async () => {
        const text = `<p>${randomUUID()}</p>`;
        const bytes = bytesOf(text);
        await addFile(user(), 'lent', 'index.html', text, [], bytes);
        bytes.fill(0);
        expect(Buffer.from((await store.getFile(sha(bytesOf(text))))!).toString()).to.equal(text);
      });

      it('shows an alias with the slug it redirects to, and writes nothing when the decision is to write nothing', async () => {
        const owner = user();
        const { record } = await publish(owner, 'renamed-to');
        await store.transaction(owner, (tx) => tx.insertAlias({ owner, slug: 'was', dashboardId: record.id }));
        const states: PublishState[] = [];
        const answer = await store.publish(owner, 'was', [], (state) => {
          states.push(state);
          return { write: null, result: 'nothing' };
        });
        expect(answer).to.equal('nothing');
        expect(states.at(-1)).to.deep.equal({ alias: { dashboardSlug: 'renamed-to' }, dashboard: null, current: null });
        const unstored = bytesOf(`<p>${randomUUID()}</p>`);
        const refused = await refusal(
          store.publish(owner, 'was', [{ sha256: sha(unstored), bytes: unstored }], () => {
            throw new DomainError('conflict', 'refused');
          }),
        );
        expect(refused.code).to.equal('conflict');
        expect(await store.getFile(sha(unstored))).to.equal(null);
        expect(await store.findDashboard(owner, 'was')).to.equal(null);
        expect(await store.listVersions(record.id)).to.have.length(1);
      });

      it(`prunes unnamed snapshots beyond the newest ${AUTOMATIC_SNAPSHOTS_KEPT}, keeping named ones`, async () => {
        const owner = user();
        const ids: string[] = [];
        for (let i = 0; i < AUTOMATIC_SNAPSHOTS_KEPT + 4; i++) ids.push(await addFile(owner, 'pruned', 'index.html', `<p>${i}</p>`));
        const record = (await store.findDashboard(owner, 'pruned'))!;
        expect((await store.listVersions(record.id)).map((v) => v.id)).to.deep.equal(ids.slice(-AUTOMATIC_SNAPSHOTS_KEPT - 1).reverse());
        const named = ids[ids.length - AUTOMATIC_SNAPSHOTS_KEPT + 1]!;
        await store.transaction(owner, (tx) => tx.setVersionName(named, 'keep me'));
        ids.push(await addFile(owner, 'pruned', 'index.html', '<p>next</p>'));
        ids.push(await addFile(owner, 'pruned', 'index.html', '<p>last</p>'));
        // The current one and the newest 20 unnamed snapshots, the named one among them by seq: without its
        // name it would have been pruned too.
        const kept = await store.listVersions(record.id);
        expect(kept.map((v) => v.id)).to.deep.equal(ids.slice(-AUTOMATIC_SNAPSHOTS_KEPT - 2).reverse());
        expect(kept.filter((v) => v.name !== null).map((v) => v.id)).to.deep.equal([named]);
      });

      it('numbers and prunes versions by the domain rule (nextVersionSeq, snapshotsToPrune) over 25 publishes with names', async () => {
        const owner = user();
        // The rule as the application states it, applied to what each publish leaves.
        let expected: { id: string; seq: number; name: string | null }[] = [];
        const publishOne = async (i: number) => {
          const id = await addFile(owner, 'numbered', 'index.html', `<p>${i} ${randomUUID()}</p>`);
          expected.push({ id, seq: nextVersionSeq(expected), name: null });
          const doomed = new Set(snapshotsToPrune(expected.filter((v) => v.id !== id)));
          expected = expected.filter((v) => !doomed.has(v.id));
        };
        for (let i = 0; i < 12; i++) await publishOne(i);
        for (const seq of [2, 10]) {
          const v = expected.find((e) => e.seq === seq)!;
          v.name = `kept ${seq}`;
          await store.transaction(owner, (tx) => tx.setVersionName(v.id, v.name));
        }
        for (let i = 12; i < 25; i++) await publishOne(i);
        const record = (await store.findDashboard(owner, 'numbered'))!;
        const kept = (await store.listVersions(record.id)).map((v) => ({ id: v.id, seq: v.seq, name: v.name }));
        expect(kept).to.deep.equal([...expected].sort((a, b) => b.seq - a.seq));
        // The current one (25), the newest 20 unnamed snapshots (4 to 24 but 10), and the named 10 and 2.
        expect(kept.map((v) => v.seq)).to.deep.equal([...Array.from({ length: 22 }, (_, i) => 25 - i), 2]);
      });

      it('loses no concurrent publish to one slug: each decides on the state the previous one left', async () => {
        const owner = user();
        const names = Array.from({ length: 12 }, (_, i) => `f${String(i).padStart(2, '0')}.html`);
        await Promise.all(names.map((name) => addFile(owner, 'busy', name, `<p>${name}</p>`)));
        const record = (await store.findDashboard(owner, 'busy'))!;
        const versions = await store.listVersions(record.id);
        expect(versions.map((v) => v.seq)).to.deep.equal(names.map((_, i) => names.length - i));
        expect(Object.keys(versions[0].files).sort()).to.deep.equal(names);
        expect(versions[0].id).to.equal(record.currentVersionId);
      });
    });
  });
}
