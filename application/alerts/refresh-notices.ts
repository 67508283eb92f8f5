import { escapeHtml } from '../../domain/html.js';
import type { OutgoingMail } from '../ports/delivery-ports.js';

/** The owner's emails about a refresh failure streak: when it starts and when it ends. */

const at = (date: Date) => `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;

export interface RefreshNoticeInput {
  to: string;
  dashboardName: string;
  pageUrl: string;
}

/** The owner's notice that refreshes started failing (sent once per streak). */
export function refreshFailingNotice(input: RefreshNoticeInput & { error: string; since: Date }): OutgoingMail {
  const lead = `Refreshing ${input.dashboardName} failed at ${at(input.since)}; the page keeps showing the last good render.`;
  return {
    to: input.to,
    subject: `Refresh failing: ${input.dashboardName}`,
    text: [lead, `Error: ${input.error}`, '', `You hear once more when a refresh succeeds again. Details: ${input.pageUrl}`].join('\n'),
    html: [
      `<p>${escapeHtml(lead)}</p>`,
      `<p>Error: ${escapeHtml(input.error)}</p>`,
      `<p>You hear once more when a refresh succeeds again. <a href="${escapeHtml(input.pageUrl)}">Details</a></p>`,
    ].join('\n'),
    image: null,
    unsubscribeUrl: null,
  };
}

/** The owner's notice that a refresh succeeded after a failure streak. */
export function refreshRecoveredNotice(input: RefreshNoticeInput & { failures: number }): OutgoingMail {
  const lead = `Refreshing ${input.dashboardName} works again, after ${input.failures} failed run${input.failures === 1 ? '' : 's'} in a row.`;
  return {
    to: input.to,
    subject: `Refresh recovered: ${input.dashboardName}`,
    text: [lead, '', `Details: ${input.pageUrl}`].join('\n'),
    html: [`<p>${escapeHtml(lead)}</p>`, `<p><a href="${escapeHtml(input.pageUrl)}">Details</a></p>`].join('\n'),
    image: null,
    unsubscribeUrl: null,
  };
}
