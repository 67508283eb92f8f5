import { expect } from 'chai';
import type { RefreshStatus, RefreshTriggered, ScheduleSet } from '../../application/refresh/manage-refresh.js';
import type { Target } from '../../domain/scope.js';
import { dashboardAddresses } from '../../shells/presenters/dashboards/dashboard-addresses.js';
import { runJson, scheduleJson, statusJson, triggeredJson } from '../../shells/presenters/refresh/refresh-presenters.js';

/** The refresh tools' wire shapes, made from ManageRefresh's records: keys in order, canonical URLs, ISO times. */
describe('refresh presenters', () => {
  const urls = { dashboardScheme: 'https', dashboardDomain: 'dash.example' };
  const ada: Target = { kind: 'personal', userId: 'u1', handle: 'ada' };
  const acme: Target = { kind: 'workspace', workspaceId: 'w1', slug: 'acme' };
  const at = (iso: string) => new Date(iso);

  it('shows a status with the URL from the target, the schedule and the last run, keys in wire order', () => {
    const status: RefreshStatus = {
      target: acme,
      slug: 'sales',
      refreshable: true,
      connection: 'c1',
      schedule: { dashboardId: 'd1', cron: '0 6 * * *', timezone: 'Europe/Paris', nextRunAt: at('2024-03-02T05:00:00.000Z') },
      lastRun: { id: 'r1', dashboardId: 'd1', startedAt: at('2024-03-01T05:00:00.250Z'), trigger: 'schedule', outcome: 'success', durationMs: 42, rows: 7, error: null },
      liveRenderedAt: at('2024-03-01T05:00:01.000Z'),
      pending: 'running',
      warnings: ['w'],
    };
    const json = statusJson(urls, status);
    expect(Object.keys(json)).to.deep.equal(['slug', 'url', 'refreshable', 'connection', 'schedule', 'timezone', 'next_run_at', 'last_run', 'live_rendered_at', 'warnings']);
    expect(json).to.deep.equal({
      slug: 'sales',
      url: 'https://acme.dash.example/sales',
      refreshable: true,
      connection: 'c1',
      schedule: '0 6 * * *',
      timezone: 'Europe/Paris',
      next_run_at: '2024-03-02T05:00:00.000Z',
      last_run: { started_at: '2024-03-01T05:00:00.250Z', trigger: 'schedule', outcome: 'success', duration_ms: 42, rows: 7, error: null },
      live_rendered_at: '2024-03-01T05:00:01.000Z',
      warnings: ['w'],
    });
    expect(Object.keys(json.last_run!)).to.deep.equal(['started_at', 'trigger', 'outcome', 'duration_ms', 'rows', 'error']);
  });

  it('shows a dashboard never scheduled nor run with nulls', () => {
    const json = statusJson(urls, { target: ada, slug: 'x', refreshable: false, connection: 'self', schedule: null, lastRun: null, liveRenderedAt: null, pending: null, warnings: [] });
    expect(json).to.deep.include({ url: 'https://ada.dash.example/x', schedule: null, timezone: null, next_run_at: null, last_run: null, live_rendered_at: null });
    expect(runJson(null)).to.equal(null);
  });

  it('shows a schedule set with its next runs as ISO times, and a cleared one with none', () => {
    const set: ScheduleSet = { target: ada, slug: 'sales', schedule: { cron: '0 * * * *', timezone: 'UTC', nextRuns: [at('2024-03-01T11:00:00.000Z'), at('2024-03-01T12:00:00.000Z')] }, warnings: [] };
    const json = scheduleJson(urls, set);
    expect(Object.keys(json)).to.deep.equal(['slug', 'url', 'schedule', 'timezone', 'next_runs', 'warnings']);
    expect(json).to.deep.equal({ slug: 'sales', url: 'https://ada.dash.example/sales', schedule: '0 * * * *', timezone: 'UTC', next_runs: ['2024-03-01T11:00:00.000Z', '2024-03-01T12:00:00.000Z'], warnings: [] });
    expect(scheduleJson(urls, { ...set, schedule: null })).to.deep.include({ schedule: null, timezone: null, next_runs: [] });
  });

  it('shows a trigger queued or folded into a waiting one', () => {
    const queued: RefreshTriggered = { target: ada, slug: 'sales', queued: true };
    expect(Object.keys(triggeredJson(urls, queued))).to.deep.equal(['slug', 'url', 'queued', 'already_queued']);
    expect(triggeredJson(urls, queued)).to.deep.equal({ slug: 'sales', url: 'https://ada.dash.example/sales', queued: true, already_queued: false });
    expect(triggeredJson(urls, { ...queued, queued: false })).to.deep.include({ queued: false, already_queued: true });
  });

  it('gives rendered pages the same canonical URL the answers show', () => {
    expect(dashboardAddresses(urls).pageUrl('acme', 'sales')).to.equal('https://acme.dash.example/sales');
  });
});
