import type { Panel, Row } from '../../domain/dashboard-spec.js';
import { formatWith, type NumberFormat } from '../../domain/number-format.js';
import { escapeHtml } from '../../domain/html.js';
import { formatStat, toNumber } from './format.js';

/** What a stat tile adds under its value (issue 34): the change since the previous value, drawn alike on pages and images. */

export type Tone = 'good' | 'bad' | 'flat';

export interface StatDelta {
  direction: 'up' | 'down' | 'none';
  tone: Tone;
  /** What the eye reads after the arrow: "+1,250.5 (+7.4%)", or "No change". */
  text: string;
  /** What a screen reader hears after the text, so the meaning never rests on colour or arrow alone. */
  spoken: string;
}

const relative = new Intl.NumberFormat('en-US', { style: 'percent', maximumFractionDigits: 1 });
const MINUS = '\u2212';

/** A cell as a number, or null: booleans and text that is not a number do not compare. */
function numeric(value: unknown): number | null {
  return typeof value === 'boolean' ? null : toNumber(value);
}

function amount(format: NumberFormat | undefined, value: number): string {
  return format ? formatWith(format, value) : formatStat(value);
}

/**
 * The change from the compare column to the value, in the panel's format; a ratio shown as a percent
 * changes by points (2.4% to 2.1% is 0.3 pts), which a relative change would confuse. Null when either is missing.
 */
export function statDelta(panel: Panel, row: Row | undefined): StatDelta | null {
  if (panel.compare === undefined || row === undefined) return null;
  const now = numeric(row[panel.value!]);
  const before = numeric(row[panel.compare.column]);
  if (now === null || before === null) return null;
  const from = `from ${amount(panel.format, before)}`;
  const change = now - before;
  if (change === 0) return { direction: 'none', tone: 'flat', text: 'No change', spoken: from };
  const up = change > 0;
  const sign = up ? '+' : MINUS;
  const points = panel.format?.type === 'percent';
  const size = points
    ? `${formatWith({ type: 'number', decimals: panel.format!.decimals ?? 1 }, Math.abs(change) * 100)} pts`
    : amount(panel.format, Math.abs(change));
  const share = !points && before !== 0 ? ` (${sign}${relative.format(Math.abs(change / before))})` : '';
  const good = up === (panel.compare.good === 'up');
  return {
    direction: up ? 'up' : 'down',
    tone: good ? 'good' : 'bad',
    text: `${sign}${size}${share}`,
    spoken: `${up ? 'up' : 'down'} ${from}, ${good ? 'an improvement' : 'a worsening'}`,
  };
}

export const ARROWS: Record<StatDelta['direction'], string> = { up: '▲', down: '▼', none: '' };

/** The delta line of a page's tile: an arrow for the eye, the signed change as text, and words for screen readers. */
export function deltaHtml(delta: StatDelta | null): string {
  if (delta === null) return '';
  const arrow = ARROWS[delta.direction] ? `<span class="arrow" aria-hidden="true">${ARROWS[delta.direction]}</span> ` : '';
  return `<p class="stat-delta ${delta.tone}">${arrow}${escapeHtml(delta.text)} <span class="sr-only">${escapeHtml(delta.spoken)}</span></p>`;
}
