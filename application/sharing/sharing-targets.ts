import { inject, injectable } from 'inversify';
import { DomainError, invalid } from '../../domain/errors.js';
import { ownerOf, subdomainOf, type Target } from '../../domain/scope.js';
import { AccountStore } from '../ports/account-store.js';
import { DashboardStore, type DashboardRecord } from '../ports/dashboard-store.js';
import { resolveOperatorTarget, type OperatorSelector } from '../operator-target.js';

/** Who manages sharing: a signed-in person in the web app, or the operator on the CLI. */
export type SharingActor = { kind: 'person'; userId: string } | { kind: 'operator' };

/** Whose dashboard: the web app names the owner by its path segment, the CLI by `--owner` or `--workspace`. */
export type OwnerNaming = { ownerName: string } | OperatorSelector;

/** A dashboard whose sharing the actor may manage, with the target it belongs to. */
export interface SharedDashboard {
  target: Target;
  /** The dashboards host's subdomain (handle or workspace slug). */
  subdomain: string;
  dashboard: DashboardRecord;
}

/** One text for a missing dashboard and one the actor may not manage, so neither can be probed. */
export const noSharedDashboard = () => new DomainError('not_found', 'No such dashboard');

const NAME = /^[a-z0-9-]{1,64}$/;

/**
 * The tenant check for sharing (links and embeds). A person manages sharing of their own dashboards
 * and, in a workspace, only as its admin; the operator manages any. Everything else is "No such
 * dashboard", as for a missing one.
 */
@injectable()
export class SharingTargets {
  constructor(
    @inject(AccountStore) private readonly accounts: AccountStore,
    @inject(DashboardStore) private readonly store: DashboardStore,
  ) {}

  /** For a person: `ownerName` is their handle or a workspace slug, as the web app's paths name it. */
  async forPerson(userId: string, ownerName: string, slug: string): Promise<SharedDashboard> {
    const target = await this.personTarget(userId, ownerName);
    return this.find(target, slug);
  }

  async forOperator(selector: OperatorSelector, slug: string): Promise<SharedDashboard> {
    const target = await resolveOperatorTarget(this.accounts, selector);
    return this.find(target, slug);
  }

  /** The actor's dashboard, named as its surface names owners. */
  forActor(actor: SharingActor, owner: OwnerNaming, slug: string): Promise<SharedDashboard> {
    if (actor.kind === 'person') {
      if (!('ownerName' in owner)) throw invalid('name the owner');
      return this.forPerson(actor.userId, owner.ownerName, slug);
    }
    if ('ownerName' in owner) throw invalid('pass exactly one of --owner <handle> or --workspace <slug>');
    return this.forOperator(owner, slug);
  }

  /** The operator's owner without a dashboard (listing every link of an owner). */
  async operatorTarget(selector: OperatorSelector): Promise<{ target: Target; subdomain: string }> {
    const target = await resolveOperatorTarget(this.accounts, selector);
    return { target, subdomain: subdomainOf(target) };
  }

  /** The dashboards host a dashboard is served on. */
  async subdomainOf(dashboard: DashboardRecord): Promise<string> {
    if (dashboard.owner.kind === 'user') return (await this.accounts.findUserById(dashboard.owner.id))?.handle ?? '';
    return (await this.accounts.findWorkspaceById(dashboard.owner.id))?.slug ?? '';
  }

  /** Whether the actor may manage sharing of a dashboard known by id (links are named by id on the CLI and in forms). */
  async mayManage(actor: SharingActor, dashboard: DashboardRecord): Promise<boolean> {
    if (actor.kind === 'operator') return true;
    if (dashboard.owner.kind === 'user') return dashboard.owner.id === actor.userId;
    const membership = await this.accounts.findMembership(dashboard.owner.id, actor.userId);
    return membership?.role === 'admin';
  }

  private async personTarget(userId: string, ownerName: string): Promise<Target> {
    if (!NAME.test(ownerName)) throw noSharedDashboard();
    const user = await this.accounts.findUserById(userId);
    if (!user) throw noSharedDashboard();
    if (user.handle === ownerName) return { kind: 'personal', userId: user.id, handle: user.handle };
    const workspace = await this.accounts.findWorkspaceBySlug(ownerName);
    if (!workspace) throw noSharedDashboard();
    const membership = await this.accounts.findMembership(workspace.id, userId);
    if (membership?.role !== 'admin') throw noSharedDashboard();
    return { kind: 'workspace', workspaceId: workspace.id, slug: workspace.slug };
  }

  private async find(target: Target, slug: string): Promise<SharedDashboard> {
    if (!NAME.test(slug)) throw noSharedDashboard();
    const owner = ownerOf(target);
    const dashboard = (await this.store.findDashboard(owner, slug)) ?? (await this.aliased(owner, slug));
    if (!dashboard) throw noSharedDashboard();
    return { target, subdomain: subdomainOf(target), dashboard };
  }

  /** A slug a rename left behind names its dashboard here too, as on the dashboard's own page. */
  private async aliased(owner: ReturnType<typeof ownerOf>, slug: string): Promise<DashboardRecord | null> {
    const alias = await this.store.findAlias(owner, slug);
    return alias ? this.store.findDashboardById(alias.dashboardId) : null;
  }
}
