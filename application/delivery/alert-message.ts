import type { Cell } from '../../domain/dashboard-spec.js';
import type { AlertNotice, OutgoingMail } from '../ports/delivery-ports.js';
import { escapeHtml, IMAGE_CID, linkAndUnsubscribe, refreshedText, type DeliveryContent } from './delivery-message.js';

/** An alert's notification in each channel's form. */

const valueText = (value: Cell) => (value === null ? 'no value' : typeof value === 'string' ? value : JSON.stringify(value));
const headline = (notice: AlertNotice) => (notice.status === 'firing' ? `Alert: ${notice.message}` : `Cleared: ${notice.message}`);
const stateLine = (notice: AlertNotice) =>
  notice.status === 'firing' ? `The alert "${notice.id}" fired: the value is ${valueText(notice.value)}.` : `The alert "${notice.id}" cleared: the value is ${valueText(notice.value)}.`;

/** The alert's email: the message, the value and the dashboard's picture inline (and attached), as deliveries carry it. */
export function alertEmail(content: DeliveryContent, notice: AlertNotice, to: string, unsubscribeUrl: string): OutgoingMail {
  const name = content.dashboardName;
  const image = content.image ? { cid: IMAGE_CID, filename: `${content.slug}.png`, content: content.image } : null;
  const picture = image ? `<p><a href="${escapeHtml(content.url)}"><img src="cid:${IMAGE_CID}" alt="${escapeHtml(name)}" width="600"></a></p>` : '';
  const when = refreshedText(content.refreshedAt);
  return {
    to,
    subject: `${headline(notice)} (${name})`,
    text: [headline(notice), stateLine(notice), `Dashboard: ${name}, refreshed ${when}`, `Open the dashboard: ${content.url}`, '', `Unsubscribe: ${unsubscribeUrl}`].join('\n'),
    html: [
      `<h1 style="font-size:18px">${escapeHtml(headline(notice))}</h1>`,
      `<p>${escapeHtml(stateLine(notice))}</p>`,
      `<p>${escapeHtml(name)}, refreshed ${escapeHtml(when)}</p>`,
      picture,
      ...linkAndUnsubscribe(content.url, unsubscribeUrl),
    ].join('\n'),
    image,
    unsubscribeUrl,
  };
}

/** The alert's Slack message: the message, the value and the link, with the image once there is one. */
export function alertSlackMessage(content: DeliveryContent, notice: AlertNotice): string {
  const clean = (text: string) => text.replace(/[<>|&]/g, ' ');
  const label = clean(content.dashboardName);
  const blocks: unknown[] = [{ type: 'section', text: { type: 'mrkdwn', text: `*${clean(headline(notice))}*\n${clean(stateLine(notice))}\n<${content.url}|${label}>` } }];
  if (content.imageUrl) blocks.push({ type: 'image', image_url: content.imageUrl, alt_text: label });
  return JSON.stringify({ text: `${headline(notice)}: ${valueText(notice.value)} (${content.dashboardName}: ${content.url})`, blocks });
}
