import { inject, injectable } from 'inversify';
import { DomainError, invalid } from '../../domain/errors.js';
import { embedExpiry, embedSignedMessage, normaliseOrigin, normaliseOrigins, type EmbedParam, type EmbedSettings } from '../../domain/embeds.js';
import { storedParams, type SpecParam } from '../../domain/spec-params.js';
import { ownerOf, type OwnerRef } from '../../domain/scope.js';
import { Clock } from '../ports/clock.js';
import { DashboardStore } from '../ports/dashboard-store.js';
import { EmbedSigner } from '../ports/embed-signer.js';
import { EmbedStore } from '../ports/embed-store.js';
import { SecretTokens } from '../ports/secret-tokens.js';
import { SharingTargets, type OwnerNaming, type SharedDashboard, type SharingActor } from './sharing-targets.js';

/** A dashboard's embedding as the web app and the CLI show it. */
export interface EmbedState extends EmbedSettings {
  subdomain: string;
  slug: string;
  /** When the owner's embed secret was made; null while the owner has none. */
  secretCreatedAt: Date | null;
}

/** A change of settings; `secret` is the owner's new secret when this change had to make one (shown once). */
export interface EmbedChange extends EmbedState {
  secret: string | null;
}

export interface NewEmbedSecret {
  subdomain: string;
  secret: string;
  createdAt: Date;
}

/** A signed embed URL's parts; the shell joins them to the dashboards host's address. */
export interface SignedEmbed {
  subdomain: string;
  slug: string;
  /** `/_embed/<slug>?[<params>&]exp=<unix>&sig=<hex>`, the parameters in their signed (canonical) form. */
  pathAndQuery: string;
  expiresAt: Date;
}

export type OriginEdit = { add: string } | { remove: string } | { replace: string[] };

export const EMBEDDING_IS_OFF = 'Embedding is off for this dashboard: turn it on first.';

/**
 * Setting up signed embeds, for a person (web app) or the operator (CLI): a dashboard's switch and allowed
 * origins, the owner's secret (made when embedding is first turned on, rotated on request, shown only
 * then), and signed URLs for testing. The tenant check is SharingTargets': anything else is "No such dashboard".
 */
@injectable()
export class ManageEmbeds {
  constructor(
    @inject(SharingTargets) private readonly targets: SharingTargets,
    @inject(EmbedStore) private readonly store: EmbedStore,
    @inject(EmbedSigner) private readonly signer: EmbedSigner,
    @inject(SecretTokens) private readonly tokens: SecretTokens,
    @inject(Clock) private readonly clock: Clock,
    @inject(DashboardStore) private readonly dashboards: DashboardStore,
  ) {}

  async status(actor: SharingActor, owner: OwnerNaming, slug: string): Promise<EmbedState> {
    const shared = await this.targets.forActor(actor, owner, slug);
    return this.state(shared, await this.store.settings(shared.dashboard.id));
  }

  /** Turns embedding on or off and/or edits the origins; turning it on makes the owner's secret if there is none (only then, so it is shown). */
  async configure(actor: SharingActor, owner: OwnerNaming, slug: string, change: { enabled?: boolean; origins?: OriginEdit }): Promise<EmbedChange> {
    const shared = await this.targets.forActor(actor, owner, slug);
    const before = await this.store.settings(shared.dashboard.id);
    const after: EmbedSettings = { enabled: change.enabled ?? before.enabled, origins: change.origins ? editOrigins(before.origins, change.origins) : before.origins };
    await this.store.saveSettings(shared.dashboard.id, after, this.clock.now());
    const made = change.enabled === true && !(await this.store.secret(shared.dashboard.owner)) ? await this.newSecret(shared.dashboard.owner) : null;
    return { ...(await this.state(shared, after)), secret: made?.secret ?? null };
  }

  /**
   * A new secret for the owner: every embed URL signed with the old one stops working at once. A person
   * names the owner through one of its dashboards (they must manage its sharing); the operator names the owner.
   */
  async rotateSecret(actor: SharingActor, owner: OwnerNaming, slug?: string): Promise<NewEmbedSecret> {
    const { ref, subdomain } = await this.owner(actor, owner, slug);
    return { subdomain, ...(await this.newSecret(ref)) };
  }

  /**
   * A URL valid for `lifetimeMs` (at most 30 days), signed with the owner's current secret, locking `params`
   * (names the current spec declares, a date range also as `<id>.from` and `<id>.to`, and `theme`).
   */
  async signedUrl(actor: SharingActor, owner: OwnerNaming, slug: string, lifetimeMs: number, params: readonly EmbedParam[] = []): Promise<SignedEmbed> {
    const shared = await this.targets.forActor(actor, owner, slug);
    const now = this.clock.now().getTime();
    const exp = embedExpiry(lifetimeMs, now);
    const settings = await this.store.settings(shared.dashboard.id);
    const secret = await this.store.secret(shared.dashboard.owner);
    if (!settings.enabled || !secret) throw new DomainError('conflict', EMBEDDING_IS_OFF);
    if (params.length > 0) await this.checkNames(shared, params);
    const message = embedSignedMessage(shared.dashboard.slug, exp, params);
    const pathAndQuery = `${message}&sig=${this.signer.sign(secret.secret, message)}`;
    return { subdomain: shared.subdomain, slug: shared.dashboard.slug, pathAndQuery, expiresAt: new Date(exp * 1000) };
  }

  /** A typo would lock nothing and still sign, so every name must be one of the spec's parameters (or `theme`). */
  private async checkNames(shared: SharedDashboard, params: readonly EmbedParam[]): Promise<void> {
    const { dashboard } = shared;
    const version = await this.dashboards.getVersion(dashboard.id, dashboard.currentVersionId);
    const declared = storedParams(version?.spec);
    const names = new Set(['theme', ...declared.flatMap((p: SpecParam) => (p.type === 'date_range' ? [p.id, `${p.id}.from`, `${p.id}.to`] : [p.id]))]);
    for (const [name] of params) {
      if (names.has(name)) continue;
      const known = declared.length === 0 ? 'it has none' : `it has ${declared.map((p) => p.id).join(', ')}`;
      throw invalid(`${shared.dashboard.slug} has no parameter "${name.slice(0, 64)}" (${known})`);
    }
  }

  private async newSecret(owner: OwnerRef): Promise<{ secret: string; createdAt: Date }> {
    const made = { secret: this.tokens.generate(), createdAt: this.clock.now() };
    await this.store.saveSecret(owner, made);
    return made;
  }

  private async state(shared: SharedDashboard, settings: EmbedSettings): Promise<EmbedState> {
    const secret = await this.store.secret(shared.dashboard.owner);
    return { ...settings, subdomain: shared.subdomain, slug: shared.dashboard.slug, secretCreatedAt: secret?.createdAt ?? null };
  }

  private async owner(actor: SharingActor, owner: OwnerNaming, slug?: string): Promise<{ ref: OwnerRef; subdomain: string }> {
    if (slug !== undefined) {
      const shared = await this.targets.forActor(actor, owner, slug);
      return { ref: shared.dashboard.owner, subdomain: shared.subdomain };
    }
    if (actor.kind !== 'operator' || 'ownerName' in owner) throw invalid('name the dashboard');
    const found = await this.targets.operatorTarget(owner);
    return { ref: ownerOf(found.target), subdomain: found.subdomain };
  }

}

function editOrigins(origins: string[], edit: OriginEdit): string[] {
  if ('replace' in edit) return normaliseOrigins(edit.replace);
  if ('add' in edit) return normaliseOrigins([...origins, edit.add]);
  const gone = normaliseOrigin(edit.remove);
  if (!origins.includes(gone)) throw invalid(`${gone} is not an allowed origin of this dashboard`);
  return origins.filter((o) => o !== gone);
}
