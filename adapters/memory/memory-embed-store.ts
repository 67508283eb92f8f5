import { injectable } from 'inversify';
import { EMBEDDING_OFF, type EmbedSettings } from '../../domain/embeds.js';
import type { OwnerRef } from '../../domain/scope.js';
import type { EmbedSecret, EmbedStore } from '../../application/ports/embed-store.js';

const ownerKey = (owner: OwnerRef) => `${owner.kind}:${owner.id}`;

/** Embed settings and secrets in Maps; one process only, nothing at rest to seal. */
@injectable()
export class MemoryEmbedStore implements EmbedStore {
  private readonly dashboards = new Map<string, EmbedSettings>();
  private readonly secrets = new Map<string, EmbedSecret>();

  async settings(dashboardId: string): Promise<EmbedSettings> {
    const found = this.dashboards.get(dashboardId) ?? EMBEDDING_OFF;
    return { enabled: found.enabled, origins: [...found.origins] };
  }

  async saveSettings(dashboardId: string, settings: EmbedSettings): Promise<void> {
    this.dashboards.set(dashboardId, { enabled: settings.enabled, origins: [...settings.origins] });
  }

  async secret(owner: OwnerRef): Promise<EmbedSecret | null> {
    const found = this.secrets.get(ownerKey(owner));
    return found ? { ...found } : null;
  }

  async saveSecret(owner: OwnerRef, secret: EmbedSecret): Promise<void> {
    this.secrets.set(ownerKey(owner), { ...secret });
  }
}
