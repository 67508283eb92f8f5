import type { DeliveryAddresses } from '../../../application/ports/delivery-ports.js';

/** The one-click unsubscribe path on the web app's host; `_` keeps it apart from every page path. */
export const UNSUBSCRIBE_PATH_PREFIX = '/_unsubscribe/';

export function deliveryAddresses(settings: { appUrl: string }): DeliveryAddresses {
  return {
    unsubscribeUrl: (token) => `${settings.appUrl}${UNSUBSCRIBE_PATH_PREFIX}${token}`,
    deliverSectionUrl: (owner, slug) => `${settings.appUrl}/dashboards/${encodeURIComponent(owner)}/${encodeURIComponent(slug)}#deliver`,
  };
}
