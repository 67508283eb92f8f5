import { columnsOf, isChartType, panelWidth, type DashboardSpec, type Panel } from '../../domain/dashboard-spec.js';
import type { Row } from '../../domain/dashboard-spec.js';
import { escapeHtml } from '../../domain/html.js';
import type { ImageTheme } from '../../domain/page-theme.js';
import { renderChart } from './charts.js';
import { collectDatasets, dataProblem, MAX_TABLE_COLUMNS, numberCellText, pageChartDrawings, statValue, type Dataset, type PageDrawing } from './echarts-page-renderer.js';
import { formatTimestamp, wantsSeparators } from './format.js';
import { SPARK_HEIGHT, sparkPoints, sparkTitle, sparkValues, statDelta, type StatDelta } from './stat-tile.js';
import { isNumberColumn, shownColumns, zonedColumnTexts, type ShownColumn } from './table-columns.js';
import { CHART_INK, CHART_RULE, CHART_SLICE_BORDER, THEME_COLOURS } from './page-style.js';

export const PAGE_IMAGE_WIDTH = 1200;
export const PANEL_IMAGE_WIDTH = 800;
/** The family the rasteriser loads from the font package; every text in an image asks for it. */
export const IMAGE_FONT = 'Inter';

const PAD = 32;
const GAP = 16;
const CARD_PAD = 16;
const TABLE_ROWS = 8;
const TABLE_ROW_HEIGHT = 28;
const TEXT_LINES = 14;
/** How far a page's drawing may be scaled into the image before its text reads too small or too large. */
const REUSE_SCALE = 0.2;

type Colours = Readonly<Record<string, string>>;

export interface ImageSvg {
  svg: string;
  width: number;
  height: number;
}

/** A panel laid out at a known width: its height, and its drawing once placed. */
interface Drawn {
  height: number;
  draw(x: number, y: number, height: number): string;
}

export interface ImageRequest {
  fallbackTitle: string;
  renderedAt: Date;
  theme: ImageTheme;
  panelId?: string;
  /** The dashboard's page as rendered from the same data: its chart drawings are reused, not drawn again. */
  page?: string;
}

/**
 * A standalone SVG of the whole dashboard (1200 px wide, the page's 12-column grid) or of one panel
 * (800 px wide), drawn with one theme's colours, for the rasteriser. Null for an unknown panel id.
 */
export function dashboardImageSvg(spec: DashboardSpec, data: Record<string, Row[]>, request: ImageRequest): ImageSvg | null {
  const colours = THEME_COLOURS[request.theme];
  const datasets = collectDatasets(spec, data);
  const drawings = request.page === undefined ? new Map<string, PageDrawing>() : pageChartDrawings(request.page);
  // Column lists are per data set, not per panel: with many rows, scanning once matters.
  const columns = new Map<string, string[]>();
  const dataFor = (panel: Panel): Dataset | undefined => {
    const rows = panel.query === undefined ? undefined : datasets.get(panel.query);
    if (rows === undefined) return undefined;
    if (!columns.has(panel.query!)) columns.set(panel.query!, columnsOf(rows));
    return { rows, columns: columns.get(panel.query!)!, zone: spec.timezone };
  };
  if (request.panelId !== undefined) {
    const panel = spec.panels.find((p) => p.id === request.panelId);
    if (!panel) return null;
    const width = PANEL_IMAGE_WIDTH - 2 * GAP;
    const drawn = drawPanel(panel, dataFor(panel), width, colours, { chartHeight: 360, drawing: drawings.get(panel.id), idPrefix: 'i0' });
    return document(PANEL_IMAGE_WIDTH, drawn.height + 2 * GAP, colours, drawn.draw(GAP, GAP, drawn.height));
  }
  const title = spec.title.trim() !== '' ? spec.title : request.fallbackTitle;
  const header = drawHeader(title, spec.description, request.renderedAt, colours);
  const grid = drawGrid(spec.panels, dataFor, colours, drawings);
  const height = PAD + header.height + grid.height + PAD;
  return document(PAGE_IMAGE_WIDTH, height, colours, header.draw(PAD, PAD, header.height) + grid.draw(PAD, PAD + header.height, grid.height));
}

function document(width: number, height: number, colours: Colours, body: string): ImageSvg {
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="${IMAGE_FONT}">` +
    `<rect width="${width}" height="${height}" fill="${colours.bg}"/>${body}</svg>`;
  // XML refuses these control characters, which data may hold; they draw nothing anyway.
  // eslint-disable-next-line no-control-regex
  return { svg: svg.replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, ''), width, height };
}

/** Rough advance width of text in the image font, enough to cut text before it overflows. */
function textWidth(text: string, size: number): number {
  return text.length * size * 0.56;
}

function fit(text: string, width: number, size: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (textWidth(flat, size) <= width) return flat;
  const chars = Math.max(1, Math.floor(width / (size * 0.56)) - 1);
  return `${flat.slice(0, chars)}…`;
}

function wrap(text: string, width: number, size: number, maxLines: number): string[] {
  const perLine = Math.max(8, Math.floor(width / (size * 0.56)));
  const lines: string[] = [];
  for (const paragraph of text.split('\n')) {
    let line = '';
    for (const word of paragraph.split(/\s+/).filter(Boolean)) {
      const next = line ? `${line} ${word}` : word;
      if (next.length <= perLine) line = next;
      else {
        if (line) lines.push(line);
        line = word.length > perLine ? `${word.slice(0, perLine - 1)}…` : word;
      }
    }
    lines.push(line);
  }
  if (lines.length > maxLines) return [...lines.slice(0, maxLines - 1), `${lines[maxLines - 1]!.slice(0, perLine - 1)}…`];
  return lines;
}

function text(x: number, y: number, content: string, size: number, fill: string, extra = ''): string {
  return `<text x="${x}" y="${y}" font-size="${size}" fill="${fill}"${extra}>${escapeHtml(content)}</text>`;
}

function drawHeader(title: string, description: string | undefined, at: Date, colours: Colours): Drawn {
  const width = PAGE_IMAGE_WIDTH - 2 * PAD;
  const lines = description?.trim() ? wrap(description.trim(), width, 15, 2) : [];
  const height = 34 + 6 + lines.length * 23 + 20 + 24;
  return {
    height,
    draw: (x, y) =>
      text(x, y + 27, fit(title, width, 28), 28, colours.heading!, ' font-weight="700"') +
      lines.map((line, i) => text(x, y + 34 + 6 + 17 + i * 23, line, 15, colours.muted!)).join('') +
      text(x, y + 34 + 6 + lines.length * 23 + 14, `Last refreshed ${formatTimestamp(at)}`, 13, colours.meta!),
  };
}

/** The page's grid: 12 columns, panels placed in order, a panel that does not fit starting the next row. */
function drawGrid(panels: Panel[], dataFor: (panel: Panel) => Dataset | undefined, colours: Colours, drawings: Map<string, PageDrawing>): Drawn {
  const inner = PAGE_IMAGE_WIDTH - 2 * PAD;
  const column = (inner - 11 * GAP) / 12;
  const rows: Array<Array<{ drawn: Drawn; x: number }>> = [];
  let used = 12;
  for (const [index, panel] of panels.entries()) {
    const span = panelWidth(panel);
    if (used + span > 12) {
      rows.push([]);
      used = 0;
    }
    const width = span * column + (span - 1) * GAP;
    const chartHeight = span >= 9 ? 340 : 300;
    const drawn = drawPanel(panel, dataFor(panel), width, colours, { chartHeight, drawing: drawings.get(panel.id), idPrefix: `i${index}` });
    rows.at(-1)!.push({ drawn, x: used * (column + GAP) });
    used += span;
  }
  const heights = rows.map((row) => Math.max(...row.map((cell) => cell.drawn.height)));
  const height = heights.reduce((sum, h) => sum + h, 0) + Math.max(0, rows.length - 1) * GAP;
  return {
    height,
    draw: (x, y) => {
      let top = y;
      return rows
        .map((row, r) => {
          const out = row.map((cell) => cell.drawn.draw(x + cell.x, top, heights[r]!)).join('');
          top += heights[r]! + GAP;
          return out;
        })
        .join('');
    },
  };
}

/** How a chart panel is drawn in the image: the page's drawing when it fits, else one of `chartHeight` named by `idPrefix`. */
interface ChartAsk {
  chartHeight: number;
  drawing: PageDrawing | undefined;
  idPrefix: string;
}

/** One panel's card at `width`: its title, then its chart, table, tile, text or the reason it is empty. */
function drawPanel(panel: Panel, data: Dataset | undefined, width: number, colours: Colours, chart: ChartAsk): Drawn {
  const inner = width - 2 * CARD_PAD;
  const heading = panel.type === 'stat' ? (panel.title || panel.value || '') : (panel.title ?? '');
  const headingHeight = heading ? (panel.type === 'stat' ? 24 : 34) : 0;
  const body = panelBody(panel, data, inner, colours, chart);
  const height = CARD_PAD + headingHeight + body.height + CARD_PAD;
  return {
    height,
    draw: (x, y, h) => {
      const card = `<rect x="${x + 0.5}" y="${y + 0.5}" width="${width - 1}" height="${h - 1}" rx="12" fill="${colours.panel}" stroke="${colours.border}"/>`;
      const title = heading
        ? panel.type === 'stat'
          ? text(x + CARD_PAD, y + CARD_PAD + 14, fit(heading, inner, 13), 13, colours.meta!, ' font-weight="600"')
          : text(x + CARD_PAD, y + CARD_PAD + 16, fit(heading, inner, 15), 15, colours.heading!, ' font-weight="600"')
        : '';
      return card + title + body.draw(x + CARD_PAD, y + CARD_PAD + headingHeight, body.height);
    },
  };
}

function panelBody(panel: Panel, data: Dataset | undefined, width: number, colours: Colours, { chartHeight, drawing, idPrefix }: ChartAsk): Drawn {
  if (panel.type === 'text') return textBody(panel.text ?? '', width, colours);
  const problem = dataProblem(panel, data);
  if (problem) return emptyBody(problem, width, colours, panel.type === 'stat');
  if (panel.type === 'stat') return statBody(panel, data!, width, colours);
  if (panel.type === 'table') return tableBody(panel, data!, width, colours);
  if (drawing && Math.abs(drawing.width / width - 1) <= REUSE_SCALE) return chartBody(drawing, width, Math.round((width * drawing.height) / drawing.width), colours);
  const drawn = drawChart(panel, data!.rows, { width, height: chartHeight }, idPrefix);
  return chartBody(drawn, width, drawn.height, colours);
}

function statBody(panel: Panel, data: Dataset, width: number, colours: Colours): Drawn {
  const { text: value, full } = statValue(panel, data);
  const delta = statDelta(panel, data.rows[0]);
  // The same hover title as the page's tile, for the SVG read on its own; the delta's words as the page's screen readers hear them.
  const title = `<title>${escapeHtml(`${panel.title || panel.value}: ${full}${delta ? `, ${delta.text} ${delta.spoken}` : ''}`)}</title>`;
  const big = (x: number, y: number) => text(x, y + 36, fit(value, width, 34), 34, colours.heading!, ' font-weight="700"');
  const deltaHeight = delta ? 22 : 0;
  const spark = panel.sparkline === undefined ? [] : sparkValues(data.rows, panel.sparkline);
  const sparkHeight = spark.length >= 2 ? SPARK_HEIGHT + 8 : 0;
  return {
    height: 44 + deltaHeight + sparkHeight,
    draw: (x, y) => {
      const line = delta ? deltaLine(delta, x, y + 60, width, colours) : '';
      const trend = sparkHeight
        ? `<g transform="translate(${x} ${y + 44 + deltaHeight + 8})"><title>${escapeHtml(sparkTitle(panel, spark))}</title>` +
          `<polyline points="${sparkPoints(spark, width, SPARK_HEIGHT)}" fill="none" stroke="${colours.link}" stroke-width="2" stroke-linejoin="round" stroke-linecap="round"/></g>`
        : '';
      return `<g>${title}${big(x, y)}${line}</g>${trend}`;
    },
  };
}

/** A tile's delta in an image: the arrow is a drawn triangle, as the image font need not have the page's ▲ and ▼. */
function deltaLine(delta: StatDelta, x: number, y: number, width: number, colours: Colours): string {
  const fill = delta.tone === 'flat' ? colours.meta! : colours[delta.tone]!;
  const arrow = delta.direction === 'up' ? `<path d="M${x} ${y}h10l-5 -9z" fill="${fill}"/>` : delta.direction === 'down' ? `<path d="M${x} ${y - 9}h10l-5 9z" fill="${fill}"/>` : '';
  const indent = delta.direction === 'none' ? 0 : 15;
  return arrow + text(x + indent, y, fit(delta.text, width - indent, 13), 13, fill, ' font-weight="600"');
}

function drawChart(panel: Panel, rows: Row[], { width, height }: { width: number; height: number }, idPrefix: string): PageDrawing {
  if (!isChartType(panel.type)) throw new Error(`not a chart panel: ${panel.type}`);
  const [chart] = renderChart({ ...panel, type: panel.type }, rows, [{ width: Math.round(width), height }], panel.title || panel.type, idPrefix);
  // A long legend can make the drawing taller than asked; its viewBox says how tall.
  const drawn = Number(/viewBox="0 0 [\d.]+ ([\d.]+)"/.exec(chart!.svg)?.[1] ?? height);
  return { svg: chart!.svg, width: Math.round(width), height: drawn, ...(chart!.note ? { note: chart!.note } : {}) };
}

function emptyBody(message: string, width: number, colours: Colours, plain: boolean): Drawn {
  const lines = wrap(message, width - 32, 14, 4);
  const height = plain ? lines.length * 20 : Math.max(120, lines.length * 20 + 32);
  return {
    height,
    draw: (x, y) => {
      const box = plain ? '' : `<rect x="${x + 0.5}" y="${y + 0.5}" width="${width - 1}" height="${height - 1}" rx="8" fill="none" stroke="${colours.dashed}" stroke-dasharray="4 3"/>`;
      const top = plain ? y + 15 : y + (height - lines.length * 20) / 2 + 15;
      const anchor = plain ? '' : ' text-anchor="middle"';
      const left = plain ? x : x + width / 2;
      return box + lines.map((line, i) => text(left, top + i * 20, line, 14, colours.meta!, anchor)).join('');
    },
  };
}

/** A chart drawing placed at `width` × `height` (its viewBox scales it), in the theme's colours. */
function chartBody(chart: PageDrawing, width: number, height: number, colours: Colours): Drawn {
  const svg = chart.svg
    .replaceAll(`fill="${CHART_INK}"`, `fill="${colours['chart-ink']}"`)
    .replaceAll(`stroke="${CHART_RULE}"`, `stroke="${colours['chart-rule']}"`)
    .replaceAll(`stroke="${CHART_SLICE_BORDER}"`, `stroke="${colours.panel}"`);
  const noteHeight = chart.note ? 22 : 0;
  return {
    height: height + noteHeight,
    draw: (x, y) =>
      svg.replace(/^<svg /, `<svg x="${x}" y="${y}" width="${Math.round(width)}" height="${height}" `) +
      (chart.note ? text(x, y + height + 16, fit(chart.note, width, 12), 12, colours.meta!) : ''),
  };
}

function tableBody(panel: Panel, { rows, columns: every, zone = 'UTC' }: Dataset, width: number, colours: Colours): Drawn {
  const all = shownColumns(panel, every).columns;
  const listed = all.slice(0, Math.min(MAX_TABLE_COLUMNS, Math.max(1, Math.floor(width / 90))));
  const columns = listed.map((c) => c.id);
  const shown = rows.slice(0, TABLE_ROWS);
  const columnWidth = width / columns.length;
  const numeric = new Set(listed.filter((c) => isNumberColumn(c, shown.map((row) => row[c.id]))).map((c) => c.id));
  const cells = listed.map(({ id: c, format }) => {
    const separators = numeric.has(c) && wantsSeparators(shown.map((row) => row[c]));
    const texts = numeric.has(c) ? shown.map((row) => (row[c] === null || row[c] === undefined ? '—' : numberCellText(row[c], separators, format ?? panel.format))) : zonedColumnTexts(shown.map((row) => row[c]), zone).texts;
    return texts.map((t, r) => (shown[r]![c] === null || shown[r]![c] === undefined ? '—' : t));
  });
  const note = rows.length > shown.length || all.length > columns.length ? `Showing ${shown.length} of ${rows.length.toLocaleString('en-US')} rows and ${columns.length} of ${all.length} columns.` : '';
  const height = (shown.length + 1) * TABLE_ROW_HEIGHT + (note ? 24 : 0);
  const cell = (value: string, c: number, top: number, fill: string, weight = '') => {
    const right = numeric.has(columns[c]!);
    const left = right ? 0 : 10;
    const at = right ? columnWidth * (c + 1) - 10 : columnWidth * c + left;
    return { x: at, text: fit(value, columnWidth - 20, 13), top, fill, anchor: right ? ' text-anchor="end"' : '', weight };
  };
  return {
    height,
    draw: (x, y) => {
      const parts = [`<rect x="${x}" y="${y}" width="${width}" height="${TABLE_ROW_HEIGHT}" fill="${colours['th-bg']}"/>`];
      const place = (c: ReturnType<typeof cell>) => text(x + c.x, c.top, c.text, 13, c.fill, c.anchor + c.weight);
      columns.forEach((name, i) => parts.push(place(cell(header(all[i]!, shown.map((row) => row[name]), zone), i, y + 18, colours.th!, ' font-weight="600"'))));
      shown.forEach((_, r) => {
        const top = y + (r + 1) * TABLE_ROW_HEIGHT;
        parts.push(`<rect x="${x}" y="${top}" width="${width}" height="1" fill="${colours['table-border']}"/>`);
        columns.forEach((_, c) => parts.push(place(cell(cells[c]![r]!, c, top + 18, colours.text!))));
      });
      if (note) parts.push(text(x, y + (shown.length + 1) * TABLE_ROW_HEIGHT + 18, fit(note, width, 12), 12, colours.meta!));
      return parts.join('');
    },
  };
}

/** A column's header in an image: its label, and the zone its instants are shown in, as on the page. */
function header(column: ShownColumn, values: unknown[], zone: string): string {
  return zonedColumnTexts(values, zone).zoned ? `${column.label} (${zone})` : column.label;
}

/** Markdown as plain lines: headings, emphasis, code and links keep their words and lose their marks. */
export function plainText(markdown: string): string {
  return markdown
    .split('\n')
    .map((line) =>
      line
        .replace(/^\s{0,3}#{1,6}\s+/, '')
        .replace(/^\s*[-*+]\s+/, '• ')
        .replace(/^\s*>\s?/, '')
        .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
        .replace(/(\*\*|__|\*|_|`)/g, ''),
    )
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

function textBody(markdown: string, width: number, colours: Colours): Drawn {
  const lines = wrap(plainText(markdown), width, 14, TEXT_LINES);
  return {
    height: Math.max(20, lines.length * 21),
    draw: (x, y) => lines.map((line, i) => text(x, y + 15 + i * 21, line, 14, colours.prose!)).join(''),
  };
}

export const CARD_WIDTH = 1200;
export const CARD_HEIGHT = 630;

/** The image of a dashboard published as a body (no spec to draw): its name, where it lives and when it was published. */
export function cardSvg(card: { name: string; owner: string; publishedAt: Date; theme: ImageTheme }): ImageSvg {
  const colours = THEME_COLOURS[card.theme];
  const width = CARD_WIDTH - 2 * 80;
  const lines = wrap(card.name, width, 56, 3);
  const top = 250 - (lines.length - 1) * 34;
  const body =
    `<rect x="40" y="40" width="${CARD_WIDTH - 80}" height="${CARD_HEIGHT - 80}" rx="24" fill="${colours.panel}" stroke="${colours.border}"/>` +
    text(80, 140, fit(card.owner, width, 28), 28, colours.meta!, ' font-weight="600"') +
    lines.map((line, i) => text(80, top + 40 + i * 68, line, 56, colours.heading!, ' font-weight="700"')).join('') +
    text(80, CARD_HEIGHT - 100, `Published ${formatTimestamp(card.publishedAt)}`, 26, colours.muted!);
  return document(CARD_WIDTH, CARD_HEIGHT, colours, body);
}
