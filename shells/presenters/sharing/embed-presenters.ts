import type { EmbedState, SignedEmbed } from '../../../application/sharing/manage-embeds.js';
import type { UrlSettings } from '../../../domain/urls.js';

/** `https://<owner>.<dashboard-domain>/_embed/<slug>?exp=…&sig=…` */
export function embedUrl(settings: UrlSettings, signed: Pick<SignedEmbed, 'subdomain' | 'pathAndQuery'>): string {
  return `${settings.dashboardScheme}://${signed.subdomain}.${settings.dashboardDomain}${signed.pathAndQuery}`;
}

/** A dashboard's embedding as the CLI's `--json` shows it (snake_case, ISO times, never the secret). */
export function embedStateJson(state: EmbedState) {
  return {
    owner: state.subdomain,
    slug: state.slug,
    enabled: state.enabled,
    origins: state.origins,
    secret_created_at: state.secretCreatedAt?.toISOString() ?? null,
  };
}

/** A signed URL as `--json` shows it. */
export function signedEmbedJson(settings: UrlSettings, signed: SignedEmbed) {
  return { url: embedUrl(settings, signed), slug: signed.slug, expires_at: signed.expiresAt.toISOString() };
}
