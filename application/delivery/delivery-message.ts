import { createHmac } from 'node:crypto';
import type { Cell } from '../../domain/dashboard-spec.js';
import type { AlertNotice, OutgoingMail } from '../ports/delivery-ports.js';

/** One alert's state as deliveries carry it (the webhook's `alerts`). */
export interface AlertStateJson {
  id: string;
  state: 'ok' | 'firing' | 'unchecked';
  value: Cell;
  message: string;
  changed_at: string | null;
}

/** What one delivery says about the dashboard, whichever channel carries it. */
export interface DeliveryContent {
  dashboardName: string;
  dashboardId: string;
  slug: string;
  versionId: string;
  /** The canonical page URL (or a share link the owner picked). */
  url: string;
  /** When the live render was made (the last refresh, or the publish for a dashboard never refreshed). */
  refreshedAt: Date;
  /** The dashboard's PNG, when images are available; embedded (cid) and attached in email. */
  image: Buffer | null;
  imageUrl: string | null;
  /** Every alert of the spec with its state; empty for a dashboard without alerts. */
  alerts: AlertStateJson[];
  /** The alert that flipped, when this delivery is its notification. */
  alert: AlertNotice | null;
}

export const SIGNATURE_HEADER = 'X-Dashpub-Signature';
export const TIMESTAMP_HEADER = 'X-Dashpub-Timestamp';
export const IMAGE_CID = 'dashboard-image@dashpub';

export const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

export const refreshedText = (at: Date) => `${at.toISOString().slice(0, 16).replace('T', ' ')} UTC`;

export function deliveryEmail(content: DeliveryContent, to: string, unsubscribeUrl: string): OutgoingMail {
  const name = content.dashboardName;
  const when = refreshedText(content.refreshedAt);
  const image = content.image ? { cid: IMAGE_CID, filename: `${content.slug}.png`, content: content.image } : null;
  const picture = image ? `<p><a href="${escapeHtml(content.url)}"><img src="cid:${IMAGE_CID}" alt="${escapeHtml(name)}" width="600"></a></p>` : '';
  return {
    to,
    subject: `${name}: refreshed ${when}`,
    text: [`${name}`, `Last refreshed: ${when}`, `Open the dashboard: ${content.url}`, '', `Unsubscribe: ${unsubscribeUrl}`].join('\n'),
    html: [
      `<h1 style="font-size:18px">${escapeHtml(name)}</h1>`,
      `<p>Last refreshed: ${escapeHtml(when)}</p>`,
      picture,
      ...linkAndUnsubscribe(content.url, unsubscribeUrl),
    ].join('\n'),
    image,
    unsubscribeUrl,
  };
}

/** A Slack incoming-webhook message: the link and the time, with the image once there is one. */
/** The closing lines of every dashboard email: the link, then the one-click unsubscribe. */
export function linkAndUnsubscribe(url: string, unsubscribeUrl: string): string[] {
  return [
    `<p><a href="${escapeHtml(url)}">Open the dashboard</a></p>`,
    `<p style="font-size:12px;color:#555"><a href="${escapeHtml(unsubscribeUrl)}">Unsubscribe</a> from these emails.</p>`,
  ];
}

export function slackMessage(content: DeliveryContent): string {
  const when = refreshedText(content.refreshedAt);
  const label = content.dashboardName.replace(/[<>|&]/g, ' ');
  const blocks: unknown[] = [{ type: 'section', text: { type: 'mrkdwn', text: `*<${content.url}|${label}>*\nLast refreshed: ${when}` } }];
  if (content.imageUrl) blocks.push({ type: 'image', image_url: content.imageUrl, alt_text: label });
  return JSON.stringify({ text: `${content.dashboardName}: ${content.url} (refreshed ${when})`, blocks });
}

/** The generic webhook's JSON body. */
export function webhookBody(content: DeliveryContent): string {
  return JSON.stringify({
    dashboard: { id: content.dashboardId, slug: content.slug, name: content.dashboardName },
    version: content.versionId,
    url: content.url,
    image_url: content.imageUrl,
    refreshed_at: content.refreshedAt.toISOString(),
    alerts: content.alerts,
    event: content.alert ? 'alert' : 'delivery',
    ...(content.alert ? { alert: { id: content.alert.id, state: content.alert.status, value: content.alert.value, message: content.alert.message, changed_at: content.alert.changedAt } } : {}),
  });
}

/** HMAC-SHA256 over `<timestamp>.<body>` under the subscription's secret, as README's snippet checks it. */
export function webhookSignature(secret: string, timestamp: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`, 'utf8').digest('hex')}`;
}

/** The owner's notice that a subscription was paused after failing `failures` times in a row. */
export function pausedNotice(input: { to: string; dashboardName: string; target: string; failures: number; error: string; manageUrl: string }): OutgoingMail {
  const what = `${input.target} for ${input.dashboardName}`;
  return {
    to: input.to,
    subject: `Delivery paused: ${input.dashboardName}`,
    text: [`The delivery to ${what} failed ${input.failures} times in a row and is paused.`, `Last error: ${input.error}`, '', `Send it again or remove it: ${input.manageUrl}`].join('\n'),
    html: [
      `<p>The delivery to <strong>${escapeHtml(input.target)}</strong> for <strong>${escapeHtml(input.dashboardName)}</strong> failed ${input.failures} times in a row and is paused.</p>`,
      `<p>Last error: ${escapeHtml(input.error)}</p>`,
      `<p><a href="${escapeHtml(input.manageUrl)}">Send it again or remove it</a></p>`,
    ].join('\n'),
    image: null,
    unsubscribeUrl: null,
  };
}
