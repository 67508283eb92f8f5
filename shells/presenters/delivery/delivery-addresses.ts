import type { DeliveryAddresses } from '../../../application/ports/delivery-ports.js';
import { SHARE_PATH_PREFIX, shareLinkUrl } from '../sharing/share-link-presenters.js';

/** The one-click unsubscribe path on the web app's host; `_` keeps it apart from every page path. */
export const UNSUBSCRIBE_PATH_PREFIX = '/_unsubscribe/';

export function deliveryAddresses(settings: Parameters<typeof shareLinkUrl>[0] & { appUrl: string }): DeliveryAddresses {
  return {
    unsubscribeUrl: (token) => `${settings.appUrl}${UNSUBSCRIBE_PATH_PREFIX}${token}`,
    deliverSectionUrl: (owner, slug) => `${settings.appUrl}/dashboards/${encodeURIComponent(owner)}/${encodeURIComponent(slug)}#deliver`,
    refreshSectionUrl: (owner, slug) => `${settings.appUrl}/dashboards/${encodeURIComponent(owner)}/${encodeURIComponent(slug)}#refresh`,
    shareLinkUrl: (owner, token) => shareLinkUrl(settings, owner, token),
    imageUrl: (owner, slug) => `${settings.dashboardScheme}://${owner}.${settings.dashboardDomain}/_image/${encodeURIComponent(slug)}.png`,
  };
}

/** The token of a share link's URL as `share create` printed it, or the text itself when it is no URL (a bare token). */
export function shareTokenOf(text: string): string {
  const trimmed = text.trim();
  try {
    const path = new URL(trimmed).pathname;
    return path.startsWith(SHARE_PATH_PREFIX) ? path.slice(SHARE_PATH_PREFIX.length) : '';
  } catch {
    return trimmed;
  }
}
