import { randomUUID } from 'node:crypto';
import { inject, injectable } from 'inversify';
import { DomainError, invalid } from '../../domain/errors.js';
import { isUuid } from '../../domain/ids.js';
import { ownerOf } from '../../domain/scope.js';
import {
  checkShareExpiry,
  checkShareLabel,
  checkSharePassword,
  SHARE_LINKS_PER_DASHBOARD,
  shareLinkStatus,
  type ShareLink,
  type ShareLinkStatus,
} from '../../domain/share-links.js';
import { Clock } from '../ports/clock.js';
import { DashboardStore, type DashboardRecord } from '../ports/dashboard-store.js';
import { PasswordHasher } from '../ports/password-hasher.js';
import { SecretTokens } from '../ports/secret-tokens.js';
import { ShareLinkStore } from '../ports/share-link-store.js';
import { ShareAccess } from './share-access.js';
import { SharingTargets, type OwnerNaming, type SharingActor } from './sharing-targets.js';


export interface NewLinkRequest {
  label?: string | null;
  password?: string | null;
  expiresAt?: Date | null;
  /** A duration in milliseconds from now; exclusive with `expiresAt`. */
  expiresInMs?: number | null;
  pinnedVersionId?: string | null;
}

/** A link as lists show it: with its status now and the dashboard's subdomain and slug (for its URLs). */
export interface ListedShareLink {
  link: ShareLink;
  status: ShareLinkStatus;
  subdomain: string;
  slug: string;
}

/** Made once: the token is in the answer and nowhere else. */
export interface CreatedShareLink extends ListedShareLink {
  token: string;
}

export const noSuchShareLink = () => new DomainError('not_found', 'No such share link');

/**
 * Creating, listing, pausing, resuming and revoking share links, for a person (web app) or the operator
 * (CLI). The tenant check is SharingTargets': a link on a dashboard the actor may not manage reads as missing.
 */
@injectable()
export class ManageShareLinks {
  constructor(
    @inject(SharingTargets) private readonly targets: SharingTargets,
    @inject(ShareLinkStore) private readonly links: ShareLinkStore,
    @inject(DashboardStore) private readonly dashboards: DashboardStore,
    @inject(SecretTokens) private readonly tokens: SecretTokens,
    @inject(PasswordHasher) private readonly hasher: PasswordHasher,
    @inject(Clock) private readonly clock: Clock,
    @inject(ShareAccess) private readonly access: ShareAccess,
  ) {}

  async create(actor: SharingActor, owner: OwnerNaming, slug: string, request: NewLinkRequest): Promise<CreatedShareLink> {
    const shared = await this.targets.forActor(actor, owner, slug);
    const now = this.clock.now();
    const label = checkShareLabel(request.label);
    const password = checkSharePassword(request.password);
    const expiresAt = checkShareExpiry(this.expiry(request, now), now);
    const pinnedVersionId = await this.pin(shared.dashboard, request.pinnedVersionId);
    if ((await this.links.countForDashboard(shared.dashboard.id)) >= SHARE_LINKS_PER_DASHBOARD) {
      throw new DomainError('limit_reached', `A dashboard can have at most ${SHARE_LINKS_PER_DASHBOARD} share links. Revoke one first.`);
    }
    const token = this.tokens.generate();
    const link: ShareLink = {
      id: randomUUID(),
      dashboardId: shared.dashboard.id,
      label,
      passwordHash: password === null ? null : await this.hasher.hash(password),
      expiresAt,
      paused: false,
      pinnedVersionId,
      views: 0,
      lastUsedAt: null,
      createdBy: actor.kind === 'person' ? actor.userId : null,
      createdAt: now,
    };
    await this.links.insert({ ...link, owner: shared.dashboard.owner, tokenHash: this.tokens.digest(token) });
    return { link, status: 'active', subdomain: shared.subdomain, slug: shared.dashboard.slug, token };
  }

  /** One dashboard's links when `slug` is given, else every link of the owner (the CLI's `share list`). */
  async list(actor: SharingActor, owner: OwnerNaming, slug?: string): Promise<ListedShareLink[]> {
    if (slug !== undefined) {
      const shared = await this.targets.forActor(actor, owner, slug);
      return this.present(await this.links.list(shared.dashboard.owner, shared.dashboard.id), shared.subdomain);
    }
    if (actor.kind !== 'operator' || 'ownerName' in owner) throw invalid('name the dashboard');
    const target = await this.targets.operatorTarget(owner);
    return this.present(await this.links.list(ownerOf(target.target), undefined), target.subdomain);
  }

  pause(actor: SharingActor, linkId: string): Promise<ListedShareLink> {
    return this.change(actor, linkId, (link) => this.links.setPaused(link.id, true));
  }

  resume(actor: SharingActor, linkId: string): Promise<ListedShareLink> {
    return this.change(actor, linkId, (link) => this.links.setPaused(link.id, false));
  }

  /** Deletes the link and its sessions: its URL and every browser that opened it lose access. */
  revoke(actor: SharingActor, linkId: string): Promise<ListedShareLink> {
    return this.change(actor, linkId, (link) => this.links.delete(link.id));
  }

  /** How many of a dashboard's links work right now (get_dashboard mentions it). */
  async activeCount(dashboard: DashboardRecord): Promise<number> {
    const now = this.clock.now();
    return (await this.links.list(dashboard.owner, dashboard.id)).filter((l) => shareLinkStatus(l, now) === 'active').length;
  }

  private expiry(request: NewLinkRequest, now: Date): Date | null {
    const inMs = request.expiresInMs ?? null;
    const at = request.expiresAt ?? null;
    if (inMs !== null && at !== null) throw invalid('give an expiry as a date or as a duration, not both');
    return inMs !== null ? new Date(now.getTime() + inMs) : at;
  }

  private async pin(dashboard: DashboardRecord, versionId: string | null | undefined): Promise<string | null> {
    if (versionId === undefined || versionId === null || versionId === '') return null;
    const version = isUuid(versionId) ? await this.dashboards.getVersionSummary(dashboard.id, versionId.toLowerCase()) : null;
    if (!version) throw new DomainError('not_found', `No version "${versionId}" of this dashboard`);
    return version.id;
  }

  private async change(actor: SharingActor, linkId: string, apply: (link: ShareLink) => Promise<void>): Promise<ListedShareLink> {
    const link = isUuid(linkId) ? await this.links.findById(linkId.toLowerCase()) : null;
    const dashboard = link ? await this.dashboards.findDashboardById(link.dashboardId) : null;
    if (!link || !dashboard || !(await this.targets.mayManage(actor, dashboard))) throw noSuchShareLink();
    await apply(link);
    this.access.forgetSessions();
    const after = (await this.links.findById(link.id)) ?? link;
    const subdomain = await this.targets.subdomainOf(dashboard);
    return { link: after, status: shareLinkStatus(after, this.clock.now()), subdomain, slug: dashboard.slug };
  }

  private async present(links: ShareLink[], subdomain: string): Promise<ListedShareLink[]> {
    const now = this.clock.now();
    const ids = [...new Set(links.map((l) => l.dashboardId))];
    const found = await Promise.all(ids.map((id) => this.dashboards.findDashboardById(id)));
    const slugs = new Map(ids.map((id, i) => [id, found[i]?.slug ?? '']));
    return links.map((link) => ({ link, status: shareLinkStatus(link, now), subdomain, slug: slugs.get(link.dashboardId) ?? '' }));
  }
}
