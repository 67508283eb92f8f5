/**
 * The periodic work of a running service, started by the shell that runs it (startServer in
 * shells/koa/server.ts) and never by the composition root, so a CLI command or a test that only builds
 * a container starts no timer and no worker.
 */
import { ViewTally } from '../application/hosting/view-tally.js';
import { ViewerAccess } from '../application/hosting/viewer-access.js';
import { ShareAccess } from '../application/sharing/share-access.js';
import { RefreshQueue } from '../application/ports/refresh-queue.js';
import { PgBossRefreshQueue } from '../adapters/jobs/pg-boss-refresh-queue.js';
import { flushViews, type AppContainer } from './container.js';
import { refreshJobs } from './refresh-bindings.js';

const VIEW_FLUSH_MS = 5_000;
const VIEWER_SWEEP_MS = 10 * 60_000;
const MEMORY_TICK_MS = 30_000;

/**
 * Views are written in batches every few seconds (and once more when the container closes); expired
 * viewer tickets and sessions are swept now and then; where the container runs refresh workers, pg-boss
 * runs the refresh jobs, the minute tick and the file sweep (in memory a timer ticks the scheduler).
 * Returns the stop, to call before the container's close.
 */
export async function startBackgroundWork(app: AppContainer): Promise<() => Promise<void>> {
  const { container } = app;
  const log = app.logger.child({ component: 'hosting' });
  const tally = container.get(ViewTally);
  const viewers = container.get(ViewerAccess);
  const shares = container.get(ShareAccess);
  const sweep = () => Promise.all([viewers.purgeExpired(), shares.purgeExpired()]);
  const timers = [
    setInterval(() => void flushViews(tally, log, 'periodic'), VIEW_FLUSH_MS).unref(),
    setInterval(
      () => void sweep().catch((err: unknown) => log.warn({ err }, 'sweeping expired viewer tickets and sessions failed; retried in 10 minutes')),
      VIEWER_SWEEP_MS,
    ).unref(),
  ];
  if (app.refreshWorkers) {
    const jobs = refreshJobs(container, app.logger, app.telemetry);
    const queue = container.get<RefreshQueue>(RefreshQueue);
    if (queue instanceof PgBossRefreshQueue) await queue.work(jobs);
    else timers.push(setInterval(() => void jobs.tick().catch(alreadyLogged), MEMORY_TICK_MS).unref());
  }
  return async () => {
    for (const timer of timers) clearInterval(timer);
  };
}

/** refreshJobs' handlers log their own failure (`logged`) and rethrow it; the next tick tries again. */
function alreadyLogged(): void {}
