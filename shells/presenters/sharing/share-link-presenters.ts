import type { ListedShareLink } from '../../../application/sharing/manage-share-links.js';
import type { UrlSettings } from '../../../domain/urls.js';

/** The path of a share link on the dashboards host; no publishable slug can start with `_`. */
export const SHARE_PATH_PREFIX = '/_share/';

/** `https://<owner>.<dashboard-domain>/_share/<token>`: shown once, when the link is made. */
export function shareLinkUrl(settings: UrlSettings, subdomain: string, token: string): string {
  return `${settings.dashboardScheme}://${subdomain}.${settings.dashboardDomain}${SHARE_PATH_PREFIX}${token}`;
}

/** A link as the CLI's `--json` and other machine answers show it (snake_case, ISO times, never a token or hash). */
export function shareLinkJson(listed: ListedShareLink) {
  const { link } = listed;
  return {
    id: link.id,
    slug: listed.slug,
    label: link.label,
    status: listed.status,
    password: link.passwordHash !== null,
    expires_at: link.expiresAt?.toISOString() ?? null,
    pinned_version_id: link.pinnedVersionId,
    views: link.views,
    last_used_at: link.lastUsedAt?.toISOString() ?? null,
    created_at: link.createdAt.toISOString(),
  };
}
