import { inject, injectable } from 'inversify';
import { AccountStore } from '../ports/account-store.js';
import { AlertStateStore } from '../ports/alert-state-store.js';
import type { DashboardRecord } from '../ports/dashboard-store.js';
import { DeliveryAddresses, MailSender, type OutgoingMail } from '../ports/delivery-ports.js';
import type { RefreshRun } from '../ports/refresh-state-store.js';
import { SharingTargets } from '../sharing/sharing-targets.js';
import { ownerAddresses } from './owner-addresses.js';
import { refreshFailingNotice, refreshRecoveredNotice, type RefreshNoticeInput } from './refresh-notices.js';

export type StreakEvent = 'started' | 'continued' | 'ended' | null;

/**
 * Keeps a dashboard's refresh failure streak and tells the owner (a workspace's admins) by email, when
 * email is on, once when a streak starts and once when a refresh succeeds again. The page shows the
 * streak either way.
 */
@injectable()
export class RefreshFailureNotices {
  constructor(
    @inject(AlertStateStore) private readonly store: AlertStateStore,
    @inject(AccountStore) private readonly accounts: AccountStore,
    @inject(SharingTargets) private readonly targets: SharingTargets,
    @inject(DeliveryAddresses) private readonly addresses: DeliveryAddresses,
    @inject(MailSender) private readonly mail: MailSender,
  ) {}

  async afterRun(dashboard: DashboardRecord, run: RefreshRun): Promise<StreakEvent> {
    const streak = await this.store.failureStreak(dashboard.id);
    if (run.outcome === 'failure') {
      const lastError = run.error ?? 'unknown error';
      await this.store.setFailureStreak(dashboard.id, { since: streak?.since ?? run.startedAt, failures: (streak?.failures ?? 0) + 1, lastError });
      if (streak) return 'continued';
      await this.tell(dashboard, (base) => refreshFailingNotice({ ...base, error: lastError, since: run.startedAt }));
      return 'started';
    }
    if (!streak) return null;
    await this.store.setFailureStreak(dashboard.id, null);
    await this.tell(dashboard, (base) => refreshRecoveredNotice({ ...base, failures: streak.failures }));
    return 'ended';
  }

  private async tell(dashboard: DashboardRecord, mail: (base: RefreshNoticeInput) => OutgoingMail): Promise<void> {
    if (!this.mail.enabled) return;
    const pageUrl = this.addresses.refreshSectionUrl(await this.targets.subdomainOf(dashboard), dashboard.slug);
    for (const to of await ownerAddresses(this.accounts, dashboard.owner)) {
      await this.mail.send(mail({ to, dashboardName: dashboard.name, pageUrl })).catch(() => undefined); // the page shows the streak whether or not this arrives
    }
  }
}
