import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { LiveRender, RefreshRun, RefreshSchedule, RefreshStateStore } from '../../application/ports/refresh-state-store.js';

export interface RefreshStateStoreHarness {
  store: RefreshStateStore;
  close(): Promise<void>;
}

const at = (iso: string) => new Date(iso);

const aSchedule = (over: Partial<RefreshSchedule> = {}): RefreshSchedule => ({
  dashboardId: randomUUID(),
  cron: '0 * * * *',
  timezone: 'Europe/Berlin',
  nextRunAt: at('2026-03-01T10:00:00Z'),
  ...over,
});

const aRun = (over: Partial<RefreshRun> = {}): RefreshRun => ({
  id: randomUUID(),
  dashboardId: randomUUID(),
  trigger: 'manual',
  startedAt: at('2026-03-01T10:00:00Z'),
  durationMs: 120,
  outcome: 'success',
  rows: 42,
  error: null,
  ...over,
});

/**
 * What every RefreshStateStore adapter must do: the same suite runs against memory and PostgreSQL. Its
 * `claimSchedule` compare-and-set is what makes a scheduled run happen once however many instances tick.
 */
export function describeRefreshStateStoreContract(name: string, make: () => Promise<RefreshStateStoreHarness>): void {
  describe(`RefreshStateStore contract: ${name}`, () => {
    let store: RefreshStateStore;
    let close: () => Promise<void>;
    beforeEach(async () => ({ store, close } = await make()));
    afterEach(async () => close());

    it('sets, replaces and clears a dashboard\'s schedule', async () => {
      const schedule = aSchedule();
      await store.setSchedule(schedule);
      expect(await store.getSchedule(schedule.dashboardId)).to.deep.equal(schedule);
      const replaced = { ...schedule, cron: '*/5 * * * *', timezone: 'UTC', nextRunAt: null };
      await store.setSchedule(replaced);
      expect(await store.getSchedule(schedule.dashboardId)).to.deep.equal(replaced);
      await store.clearSchedule(schedule.dashboardId);
      expect(await store.getSchedule(schedule.dashboardId)).to.equal(null);
      expect(await store.getSchedule(randomUUID())).to.equal(null);
    });

    it('lists due schedules, oldest due first, up to the limit, never one without a next run', async () => {
      const now = at('2026-03-01T12:00:00Z');
      const late = aSchedule({ nextRunAt: at('2026-03-01T11:00:00Z') });
      const exactlyNow = aSchedule({ nextRunAt: now });
      const oldest = aSchedule({ nextRunAt: at('2026-03-01T09:00:00Z') });
      const future = aSchedule({ nextRunAt: at('2026-03-01T12:00:01Z') });
      const paused = aSchedule({ nextRunAt: null });
      for (const s of [late, exactlyNow, future, paused, oldest]) await store.setSchedule(s);
      expect(await store.dueSchedules(now, 10)).to.deep.equal([oldest, late, exactlyNow]);
      expect(await store.dueSchedules(now, 2)).to.deep.equal([oldest, late]);
      expect(await store.dueSchedules(at('2026-03-01T08:00:00Z'), 10)).to.deep.equal([]);
    });

    it('claims a due run once: the claim moves the next run only from the expected time', async () => {
      const schedule = aSchedule();
      const next = at('2026-03-01T11:00:00Z');
      await store.setSchedule(schedule);
      expect(await store.claimSchedule(schedule.dashboardId, at('2026-03-01T09:59:59Z'), next)).to.equal(false);
      expect((await store.getSchedule(schedule.dashboardId))!.nextRunAt).to.deep.equal(schedule.nextRunAt);
      expect(await store.claimSchedule(schedule.dashboardId, schedule.nextRunAt!, next)).to.equal(true);
      expect((await store.getSchedule(schedule.dashboardId))!.nextRunAt).to.deep.equal(next);
      expect(await store.claimSchedule(schedule.dashboardId, schedule.nextRunAt!, at('2026-03-01T12:00:00Z'))).to.equal(false);
      expect((await store.getSchedule(schedule.dashboardId))!.nextRunAt).to.deep.equal(next);
      expect(await store.claimSchedule(randomUUID(), schedule.nextRunAt!, next)).to.equal(false);
    });

    it('lets exactly one of many concurrent claims of the same run succeed', async () => {
      const schedule = aSchedule();
      await store.setSchedule(schedule);
      const claims = await Promise.all(
        Array.from({ length: 12 }, (_, i) => store.claimSchedule(schedule.dashboardId, schedule.nextRunAt!, new Date(schedule.nextRunAt!.getTime() + (i + 1) * 60_000))),
      );
      expect(claims.filter(Boolean)).to.have.length(1);
      const winner = claims.indexOf(true);
      expect((await store.getSchedule(schedule.dashboardId))!.nextRunAt).to.deep.equal(new Date(schedule.nextRunAt!.getTime() + (winner + 1) * 60_000));
    });

    it('claims a run with no next one: the schedule stays but is never due again', async () => {
      const schedule = aSchedule();
      await store.setSchedule(schedule);
      expect(await store.claimSchedule(schedule.dashboardId, schedule.nextRunAt!, null)).to.equal(true);
      expect(await store.getSchedule(schedule.dashboardId)).to.deep.equal({ ...schedule, nextRunAt: null });
      expect(await store.dueSchedules(at('2100-01-01T00:00:00Z'), 10)).to.deep.equal([]);
    });

    it('records runs: the last one per dashboard, and every run of some dashboards oldest first', async () => {
      const [a, b, c] = [randomUUID(), randomUUID(), randomUUID()];
      const a1 = aRun({ dashboardId: a, startedAt: at('2026-03-01T10:00:00Z') });
      const a2 = aRun({ dashboardId: a, startedAt: at('2026-03-01T11:00:00Z'), trigger: 'schedule', outcome: 'failure', rows: 0, error: 'relation "sales" does not exist' });
      const b1 = aRun({ dashboardId: b, startedAt: at('2026-03-01T10:30:00Z'), trigger: 'publish' });
      const c1 = aRun({ dashboardId: c });
      for (const run of [a2, b1, a1, c1]) await store.recordRun(run);
      expect(await store.lastRun(a)).to.deep.equal(a2);
      expect(await store.lastRun(b)).to.deep.equal(b1);
      expect(await store.lastRun(randomUUID())).to.equal(null);
      expect(await store.runsOf([a, b])).to.deep.equal([a1, b1, a2]);
      expect(await store.runsOf([])).to.deep.equal([]);
    });

    it('keeps one live render per dashboard, the latest set', async () => {
      const dashboardId = randomUUID();
      const first: LiveRender = {
        dashboardId,
        versionId: randomUUID(),
        files: { 'index.html': { sha256: 'a'.repeat(64), size: 10, contentType: 'text/html; charset=utf-8' } },
        renderedAt: at('2026-03-01T10:00:00Z'),
      };
      await store.setLiveRender(first);
      expect(await store.liveRender(dashboardId)).to.deep.equal(first);
      const second: LiveRender = {
        dashboardId,
        versionId: randomUUID(),
        files: {
          'index.html': { sha256: 'b'.repeat(64), size: 11, contentType: 'text/html; charset=utf-8' },
          'data.json': { sha256: 'c'.repeat(64), size: 12, contentType: 'application/json' },
        },
        renderedAt: at('2026-03-01T11:00:00Z'),
      };
      await store.setLiveRender(second);
      expect(await store.liveRender(dashboardId)).to.deep.equal(second);
      expect(await store.liveRender(randomUUID())).to.equal(null);
    });

    it('returns copies: changing a result changes nothing stored', async () => {
      const schedule = aSchedule();
      await store.setSchedule(schedule);
      const found = (await store.getSchedule(schedule.dashboardId))!;
      found.cron = 'changed';
      found.nextRunAt!.setTime(0);
      expect(await store.getSchedule(schedule.dashboardId)).to.deep.equal(schedule);
    });
  });
}
