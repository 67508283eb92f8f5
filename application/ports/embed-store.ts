import type { EmbedSettings } from '../../domain/embeds.js';
import type { OwnerRef } from '../../domain/scope.js';

/** An owner's embed secret, as it signs and verifies embed URLs. */
export interface EmbedSecret {
  secret: string;
  createdAt: Date;
}

export const EmbedStore = Symbol.for('EmbedStore');
/**
 * Per-dashboard embed settings and per-owner embed secrets. The secret must be read back to verify
 * signatures, so it cannot be hashed: database adapters seal it at rest (SECRET_KEY) and open it on read.
 * Settings go with their dashboard.
 */
export interface EmbedStore {
  /** A dashboard's settings; embedding is off for one never configured. */
  settings(dashboardId: string): Promise<EmbedSettings>;
  saveSettings(dashboardId: string, settings: EmbedSettings, now: Date): Promise<void>;
  secret(owner: OwnerRef): Promise<EmbedSecret | null>;
  /** Creates or replaces the owner's secret (rotation). */
  saveSecret(owner: OwnerRef, secret: EmbedSecret): Promise<void>;
}
