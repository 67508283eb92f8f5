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

/** Most points a sparkline keeps: past this, each stretch of rows keeps its low and its high. */
export const MAX_SPARK_POINTS = 240;

/**
 * A sparkline's numbers, oldest first. A tile shows the first row, so queries order the latest first and the
 * line runs from the last row to the first, ending at the tile's value; cells that are not numbers are skipped.
 */
export function sparkValues(rows: readonly Row[], column: string): number[] {
  const values: number[] = [];
  for (let i = rows.length - 1; i >= 0; i--) {
    const value = numeric(rows[i]![column]);
    if (value !== null) values.push(value);
  }
  return values;
}

/** At most MAX_SPARK_POINTS of `values` to draw, keeping every stretch's low and high so no spike is lost. */
export function thinned(values: readonly number[]): readonly number[] {
  if (values.length <= MAX_SPARK_POINTS) return values;
  const buckets = MAX_SPARK_POINTS / 2;
  const kept: number[] = [];
  for (let b = 0; b < buckets; b++) {
    const stretch = values.slice(Math.floor((b * values.length) / buckets), Math.floor(((b + 1) * values.length) / buckets));
    const [low, high] = [stretch.indexOf(Math.min(...stretch)), stretch.indexOf(Math.max(...stretch))];
    for (const i of low <= high ? [low, high] : [high, low]) kept.push(stretch[i]!);
  }
  return kept;
}

/** The line's points in a `width` × `height` box, a stroke's width inside its edges; a flat series runs through the middle. */
export function sparkPoints(all: readonly number[], width: number, height: number): string {
  const values = thinned(all);
  const [low, high] = [Math.min(...values), Math.max(...values)];
  const inset = 2;
  const y = (v: number) => (high === low ? height / 2 : inset + ((high - v) / (high - low)) * (height - 2 * inset));
  const x = (i: number) => (i / (values.length - 1)) * width;
  return values.map((v, i) => `${+x(i).toFixed(1)},${+y(v).toFixed(1)}`).join(' ');
}

/** What the line shows, in words, for its `<title>`. */
export function sparkTitle(panel: Panel, values: readonly number[]): string {
  const say = (v: number) => amount(panel.format, v);
  const [low, high] = values.reduce(([l, h], v) => [Math.min(l, v), Math.max(h, v)], [Infinity, -Infinity]);
  return `${panel.title || panel.value} trend (${panel.sparkline}, ${values.length.toLocaleString('en-US')} values): from ${say(values[0]!)} to ${say(values.at(-1)!)}, low ${say(low)}, high ${say(high)}`;
}

export const SPARK_WIDTH = 200;
export const SPARK_HEIGHT = 36;

/** A page tile's sparkline: inline SVG with no script, stretched to the tile's width at a fixed height. */
export function sparklineHtml(panel: Panel, rows: readonly Row[]): string {
  if (panel.sparkline === undefined) return '';
  const values = sparkValues(rows, panel.sparkline);
  if (values.length < 2) return '';
  return (
    `<svg class="sparkline" viewBox="0 0 ${SPARK_WIDTH} ${SPARK_HEIGHT}" preserveAspectRatio="none" role="img" xmlns="http://www.w3.org/2000/svg">` +
    `<title>${escapeHtml(sparkTitle(panel, values))}</title>` +
    `<polyline points="${sparkPoints(values, SPARK_WIDTH, SPARK_HEIGHT)}" fill="none" stroke="currentColor" stroke-width="2" stroke-linejoin="round" stroke-linecap="round" vector-effect="non-scaling-stroke"/></svg>`
  );
}
