import { injectable } from 'inversify';
import {
  columnsOf,
  isChartType,
  ownEntry,
  panelColumnRefs,
  panelWidth,
  type DashboardSpec,
  type Panel,
  type Row,
} from '../../domain/dashboard-spec.js';
import type { RenderContext, RenderedPage } from '../../application/ports/page-renderer.js';
import { renderChart, type ChartSize } from './charts.js';
import { isNumberColumn, MAX_TABLE_COLUMNS, shownColumns, zonedColumnTexts } from './table-columns.js';
import { cellText, formatNumber, formatStat, formatTimestamp, jsonSafe, tableCellText, toNumber, wantsSeparators } from './format.js';
import { escapeHtml } from '../../domain/html.js';
import { renderMarkdown } from './markdown.js';
import { chartDrawings, CONTENT_SECURITY_POLICY, NARROW_WIDTH, PAGE_CSS, PARAMS_PAGE_POLICY, SMALL_WIDTH } from './page-style.js';
import { paramForm } from './param-form.js';
import { previewTagsLine } from '../../domain/link-preview.js';
import { SPEC_PAGE_OPENING } from '../../domain/page-theme.js';
import { formatWith, type NumberFormat } from '../../domain/number-format.js';
import { deltaHtml, sparklineHtml, statDelta } from './stat-tile.js';

export const MAX_TABLE_ROWS = 100;
export { MAX_TABLE_COLUMNS };
export const NARROW: ChartSize = { width: NARROW_WIDTH, height: 300 };
// Thinned category labels would leave a 200 px chart with one label; it may grow this tall to keep them all.
export const SMALL: ChartSize = { width: SMALL_WIDTH, height: 260, tallest: 420 };

/**
 * The whole dashboard as one HTML page with no script at all: charts are server-drawn SVG, so the
 * page works under `default-src 'none'` and shows the same thing in every reader.
 */
@injectable()
export class EchartsPageRenderer {
  render(spec: DashboardSpec, data: Record<string, Row[]>, context: RenderContext): RenderedPage {
    const datasets = collectDatasets(spec, data);
    const title = spec.title.trim() !== '' ? spec.title : context.fallbackTitle;
    // Column lists are per data set, not per panel: with many rows, scanning once matters.
    const columns = new Map<string, string[]>();
    const columnsFor = (id: string, rows: Row[]) => columns.get(id) ?? columns.set(id, columnsOf(rows)).get(id)!;
    const panels = spec.panels.map((panel, index) => {
      const rows = panel.query === undefined ? undefined : datasets.get(panel.query);
      return renderPanel(panel, index, rows && { rows, columns: columnsFor(panel.query!, rows), zone: spec.timezone });
    });
    const form = paramForm(spec, datasets, context.values);
    const html = page(title, spec.description, form, panels.join('\n'), context, (spec.params ?? []).length > 0);
    const dataJson = JSON.stringify({ renderedAt: context.renderedAt.toISOString(), data: Object.fromEntries(datasets) }, jsonSafe);
    return { html, dataJson };
  }
}

/** Query results win over inline data of the same id; ids the spec does not define are ignored. */
export function collectDatasets(spec: DashboardSpec, data: Record<string, Row[]>): Map<string, Row[]> {
  const datasets = new Map<string, Row[]>();
  for (const id of Object.keys(spec.queries ?? {})) {
    const rows = ownEntry(data, id);
    if (rows !== undefined) datasets.set(id, rows);
  }
  for (const [id, rows] of Object.entries(spec.data ?? {})) datasets.set(id, ownEntry(data, id) ?? rows);
  return datasets;
}

function page(title: string, description: string | undefined, form: string, body: string, context: RenderContext, hasForm: boolean): string {
  const at = context.renderedAt;
  const dataLink = /^https?:\/\//i.test(context.url)
    ? `<a href="${escapeHtml(context.url.replace(/\/+$/, ''))}/data.json">Data (JSON)</a>`
    : '';
  return [
    SPEC_PAGE_OPENING,
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="color-scheme" content="light dark">',
    `<meta http-equiv="Content-Security-Policy" content="${hasForm ? PARAMS_PAGE_POLICY : CONTENT_SECURITY_POLICY}">`,
    '<meta name="referrer" content="no-referrer">',
    `<title>${escapeHtml(title)}</title>`,
    previewTags(title, description, context),
    `<style>${PAGE_CSS}</style>`,
    '</head>',
    '<body>',
    '<div class="page">',
    '<header class="page-header">',
    `<h1>${escapeHtml(title)}</h1>`,
    description ? `<p class="description">${escapeHtml(description)}</p>` : '',
    `<p class="meta">Last refreshed <time datetime="${at.toISOString()}">${formatTimestamp(at)}</time></p>`,
    '</header>',
    form,
    `<main class="grid">\n${body}\n</main>`,
    dataLink ? `<footer class="page-footer">${dataLink}</footer>` : '',
    '</div>',
    '</body>',
    '</html>',
  ]
    .filter((line) => line !== '')
    .join('\n');
}

/** The spec page's link-preview tags: the spec's description, else when it was last refreshed. */
function previewTags(title: string, description: string | undefined, context: RenderContext): string {
  const summary = description?.trim() ? description : `Dashboard, last refreshed ${formatTimestamp(context.renderedAt)}`;
  return previewTagsLine({ title, description: summary, url: context.url, imageWidth: 1200 });
}

export interface Dataset {
  rows: Row[];
  columns: string[];
  /** The IANA zone the spec shows instants in (UTC when absent). */
  zone?: string;
}

/** `index` is the panel's place in the spec, which names its drawings' ids. */
function renderPanel(panel: Panel, index: number, data: Dataset | undefined): string {
  const heading = panel.title ? `<h2 class="panel-title">${escapeHtml(panel.title)}</h2>` : '';
  if (panel.type === 'text') return section(panel, heading + `<div class="prose">${renderMarkdown(panel.text ?? '')}</div>`);
  if (panel.type === 'stat') return section(panel, statBody(panel, data));
  const problem = dataProblem(panel, data);
  if (problem) return section(panel, heading + `<p class="empty">${escapeHtml(problem)}</p>`);
  if (panel.type === 'table') return section(panel, heading + tableBody(panel, data!));
  return chartSection(panel, index, heading, data!.rows);
}

function section(panel: Panel, inner: string, extraClass = ''): string {
  const classes = ['panel', panel.type, `span-${panelWidth(panel)}`, extraClass].filter(Boolean).join(' ');
  return `<section class="${classes}" id="panel-${escapeHtml(panel.id)}" data-panel-type="${panel.type}">${inner}</section>`;
}

/** Why a data panel cannot draw, in words for the reader; undefined when it can. */
export function dataProblem(panel: Panel, data: Dataset | undefined): string | undefined {
  if (data === undefined) return `No data yet: this panel fills in when the query "${panel.query}" runs.`;
  if (data.rows.length === 0) return 'No rows to show.';
  const { columns } = data;
  const missing = panelColumnRefs(panel).filter(([, name]) => !columns.includes(name));
  if (missing.length > 0) {
    const names = missing.map(([, name]) => `"${name}"`).join(', ');
    return `Column ${names} not found in "${panel.query}" (columns: ${columns.join(', ')}).`;
  }
  return undefined;
}

function chartSection(panel: Panel, index: number, heading: string, rows: Row[]): string {
  if (!isChartType(panel.type)) throw new Error(`not a chart panel: ${panel.type}`);
  const width = panelWidth(panel);
  const label = panel.title || `${panel.type} chart of ${[panel.y].flat().join(', ')} by ${panel.x}`;
  const chartPanel = { ...panel, type: panel.type };
  // A wide chart shrunk onto a tablet or phone has unreadable labels, so it gets drawings at those sizes too.
  const drawings = chartDrawings(width);
  const sizes = drawings.map((d): ChartSize => d.kind === 'small' ? SMALL : { width: d.width, height: d.kind === 'narrow' ? NARROW.height : width >= 9 ? 340 : 300 });
  const charts = renderChart(chartPanel, rows, sizes, label, `p${index}`);
  const main = charts[0]!;
  const figure = charts.length > 1
    ? `<figure class="chart">${charts.map((chart, i) => `<div class="chart-${drawings[i]!.kind}">${chart.svg}</div>`).join('')}</figure>`
    : `<figure class="chart">${main.svg}</figure>`;
  const note = main.note ? `<p class="panel-note">${escapeHtml(main.note)}</p>` : '';
  // Phones show the phone drawing whatever the figure's width, so only charts that have one are marked.
  return section(panel, heading + figure + note, drawings.some((d) => d.kind === 'narrow') ? 'has-narrow' : '');
}

/** A chart panel's wide drawing as its page holds it, with the size it was drawn at and its note. */
export interface PageDrawing {
  svg: string;
  width: number;
  height: number;
  note?: string;
}

// Matches only what chartSection writes; titles and notes are escaped, so no '<' can fake one.
const DRAWN_CHART =
  /<section class="panel [^"]*" id="panel-([^"]*)" data-panel-type="(?:line|bar|area|pie|scatter)">(?:<h2 class="panel-title">[^<]*<\/h2>)?<figure class="chart">(?:<div class="chart-wide">)?(<svg [^>]*viewBox="0 0 (\d+(?:\.\d+)?) (\d+(?:\.\d+)?)">[\s\S]*?<\/svg>)[\s\S]*?<\/figure>(?:<p class="panel-note">([^<]*)<\/p>)?/g;
const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'" };
const unescapeHtml = (text: string) => text.replace(/&(?:amp|lt|gt|quot|#39);/g, (entity) => ENTITIES[entity]!);

/**
 * The wide drawing of each chart panel of a page this renderer wrote, by panel id, so an image reuses
 * what the page drew instead of drawing it again. A drawing that could reach outside itself is left out.
 */
export function pageChartDrawings(html: string): Map<string, PageDrawing> {
  const drawings = new Map<string, PageDrawing>();
  for (const [, id, svg, width, height, note] of html.matchAll(DRAWN_CHART)) {
    if (/<(?:image|foreignObject|script|use)\b|href=/i.test(svg!)) continue;
    drawings.set(unescapeHtml(id!), { svg: svg!, width: Number(width), height: Number(height), ...(note ? { note: unescapeHtml(note) } : {}) });
  }
  return drawings;
}

/** The table, captioned for screen readers (the heading above shows the same title to the eye). */
function tableBody(panel: Panel, { rows, columns: all, zone = 'UTC' }: Dataset): string {
  const caption = panel.title || `Rows of ${panel.query}`;
  const { columns: listed, cut } = shownColumns(panel, all);
  const columns = listed.map((c) => c.id);
  const shown = rows.slice(0, MAX_TABLE_ROWS);
  const numeric = new Set(listed.filter((c) => isNumberColumn(c, shown.map((row) => row[c.id]))).map((c) => c.id));
  const formats = new Map(listed.map((c) => [c.id, c.format ?? panel.format]));
  const separators = new Set(columns.filter((c) => numeric.has(c) && wantsSeparators(shown.map((row) => row[c]))));
  const zoned = new Map(columns.filter((c) => !numeric.has(c)).map((c) => [c, zonedColumnTexts(shown.map((row) => row[c]), zone)]));
  const texts = new Map([...zoned].map(([c, column]) => [c, column.texts]));
  const head = listed
    .map(({ id, label }) => `<th scope="col"${numeric.has(id) ? ' class="num"' : ''}>${escapeHtml(label)}${zoned.get(id)?.zoned ? ` <span class="zone">(${escapeHtml(zone)})</span>` : ''}</th>`)
    .join('');
  const body = shown
    .map((row, r) => {
      const cells = columns.map((c) => {
        const value = row[c];
        if (value === null || value === undefined) return `<td class="null${numeric.has(c) ? ' num' : ''}">—</td>`;
        const text = texts.get(c)?.[r] ?? numberCellText(value, separators.has(c), formats.get(c));
        return `<td${numeric.has(c) ? ' class="num"' : ''}>${escapeHtml(text)}</td>`;
      });
      return `<tr>${cells.join('')}</tr>`;
    })
    .join('');
  const notes: string[] = [];
  if (rows.length > shown.length) {
    notes.push(`Showing the first ${shown.length.toLocaleString('en-US')} of ${rows.length.toLocaleString('en-US')} rows.`);
  }
  if (cut) notes.push(`Showing the first ${columns.length} of ${all.length} columns.`);
  const note = notes.length ? `<p class="panel-note">${escapeHtml(notes.join(' '))} The full data is in data.json.</p>` : '';
  return `<div class="table-wrap"><table><caption>${escapeHtml(caption)}</caption><thead><tr>${head}</tr></thead><tbody>${body}</tbody></table></div>${note}`;
}

function statBody(panel: Panel, data: Dataset | undefined): string {
  const label = `<h2 class="panel-title">${escapeHtml(panel.title || panel.value || '')}</h2>`;
  const problem = dataProblem(panel, data);
  if (problem) return label + `<p class="empty">${escapeHtml(problem)}</p>`;
  const { text, full } = statValue(panel, data!);
  // The tile's hover title names it and gives the value in full (1.2M shows 1,234,567).
  const value = `<p class="stat-value" title="${escapeHtml(`${panel.title || panel.value}: ${full}`)}">${escapeHtml(text)}</p>`;
  return label + value + deltaHtml(statDelta(panel, data!.rows[0])) + sparklineHtml(panel, data!.rows);
}

/** A number column's cell: in the panel's format when it has one. */
export function numberCellText(value: unknown, separators: boolean, format: NumberFormat | undefined): string {
  const number = format && typeof value !== 'boolean' ? toNumber(value) : null;
  return number === null ? tableCellText(value, separators) : formatWith(format!, number);
}

/** A stat's shown text and its full number (the same for non-numbers). */
export function statValue(panel: Panel, data: Dataset): { text: string; full: string } {
  // A stat reads the first row: queries for a tile return one row, and ordered ones put the latest first.
  const value: unknown = data.rows[0]![panel.value!];
  const number = toNumber(value);
  if (value === null || value === undefined) return { text: '—', full: '—' };
  if (number !== null && typeof value !== 'boolean' && panel.format) {
    const text = formatWith(panel.format, number);
    return { text, full: panel.format.type === 'compact' ? formatNumber(number) : text };
  }
  if (number !== null && typeof value !== 'boolean') return { text: formatStat(number), full: formatNumber(number) };
  const text = cellText(value);
  return { text, full: text };
}
