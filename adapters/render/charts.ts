import * as echarts from 'echarts/core';
import { BarChart, LineChart, PieChart, ScatterChart } from 'echarts/charts';
import { GridComponent, LegendComponent } from 'echarts/components';
import { SVGRenderer } from 'echarts/renderers';
import type { ChartType, Panel, Row } from '../../domain/dashboard-spec.js';
import { yColumns } from '../../domain/dashboard-spec.js';
import { axisNumber, columnTexts, toNumber } from './format.js';
import { escapeHtml } from '../../domain/html.js';
import { CHART_INK, CHART_RULE, CHART_SLICE_BORDER, drawingFontSize } from './page-style.js';
import { cartesianHover, hoverNumber, scatterHover, withHoverTitles, type Hover } from './hover-titles.js';
import { formatWith, type NumberFormat } from '../../domain/number-format.js';
import { compactSvg } from './svg-compact.js';

echarts.use([LineChart, BarChart, PieChart, ScatterChart, GridComponent, LegendComponent, SVGRenderer]);

export const PALETTE = ['#4361ee', '#f59e0b', '#10b981', '#ef4444', '#8b5cf6', '#06b6d4', '#ec4899', '#84cc16', '#64748b', '#f97316'];
const FONT = "system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, sans-serif";
const INK = CHART_INK;
const RULE = CHART_RULE;

/** Beyond these, a chart stops being readable and an SVG stops being small. */
export const MAX_SCATTER_POINTS = 1000;
export const MAX_SERIES = 12;
export const MAX_PIE_SLICES = 11;
/** Up to these, every point and bar is its own element (with its title); past them, one shape per series. */
const MAX_LINE_SYMBOLS = 40;
const MAX_SINGLE_BARS = 150;
const MAX_SINGLE_POINTS = 500;

export interface ChartSize {
  width: number;
  height: number;
  /** How tall a cartesian drawing may grow so that every category label fits turned (small drawings). */
  tallest?: number;
}

export interface Chart {
  svg: string;
  /** Set when the chart shows less than the data holds, e.g. sampled scatter points. */
  note?: string;
}

interface Prepared {
  option: echarts.EChartsCoreOption;
  note?: string;
  hover: Hover;
  /** A taller drawing than asked for, when a long legend needs the room (the page scales it by its viewBox). */
  height?: number;
}

/** The data work for a chart is done once; the option for each drawing size comes from it. */
type Layout = (size: ChartSize) => Prepared;

/**
 * Server-side SVGs of one chart panel, one per size (desktop and phone drawings share the data work).
 * `idPrefix` names the drawings' ids and classes (`<idPrefix>d<n>-…`); it must differ between the charts of one
 * document. Every ECharts instance is disposed, even when drawing throws.
 */
export function renderChart(panel: Panel & { type: ChartType }, rows: readonly Row[], sizes: ChartSize[], label: string, idPrefix: string): Chart[] {
  const layout = prepare(panel, rows);
  return sizes.map((size, i) => {
    const { option, note, hover, height } = layout(size);
    const drawnHeight = height ?? size.height;
    const chart = echarts.init(null, null, { renderer: 'svg', ssr: true, width: size.width, height: drawnHeight });
    try {
      chart.setOption({
        animation: false,
        color: PALETTE,
        textStyle: { fontFamily: FONT, fontSize: chartFontSize(size), color: INK },
        ...option,
      });
      const centre = (index: number) => Number(chart.convertToPixel({ xAxisIndex: 0 }, index));
      const svg = withHoverTitles(chart.renderToSVGString(), hover, hover.bands && { centre, bottom: drawnHeight });
      return { svg: responsive(compactSvg(stableIds(svg, `${idPrefix}d${i}`)), label), note };
    } finally {
      chart.dispose();
    }
  });
}

/** Phone drawings are shown near their drawn size, so a point larger keeps their text at 11 px or more once scaled. */
export function chartFontSize(size: ChartSize): number {
  return drawingFontSize(size.width);
}

/**
 * ECharts numbers ids and classes per process (`zr<instance>-cls-<n>`, `zr<instance>-c<n>`), so the same chart
 * would be written differently by every render and every thread, and a page's bytes and ETag would change with
 * nothing changed. They are renamed after the drawing's prefix, classes numbered in order of first use. Only
 * attributes and the drawing's own style sheet are touched: text is escaped, so no label can look like either.
 */
export function stableIds(svg: string, prefix: string): string {
  const classes = new Map<string, number>();
  const rename = (id: string, cls: string | undefined) => {
    if (cls === undefined) return `${prefix}-${id}`;
    let n = classes.get(cls);
    if (n === undefined) classes.set(cls, (n = classes.size));
    return `${prefix}-cls-${n}`;
  };
  const style = svg.lastIndexOf('<style');
  const body = style < 0 ? svg : svg.slice(0, style);
  const renamed = body.replace(/(class="|id="|url\(#)zr\d+-(cls-(\d+)|[a-z]+\d+)/g, (_, before: string, id: string, cls?: string) => before + rename(id, cls));
  if (style < 0) return renamed;
  return renamed + svg.slice(style).replace(/\.zr\d+-cls-(\d+)/g, (_, cls: string) => `.${rename('', cls)}`);
}

/** Fixed pixel sizes become a viewBox-only SVG that CSS scales to its panel. */
function responsive(svg: string, label: string): string {
  return svg.replace(/^<svg width="[\d.]+" height="[\d.]+"/, `<svg class="chart-svg" role="img" aria-label="${escapeHtml(label)}" preserveAspectRatio="xMidYMid meet"`);
}

function prepare(panel: Panel & { type: ChartType }, rows: readonly Row[]): Layout {
  if (panel.type === 'pie') return pie(panel, rows);
  if (panel.type === 'scatter') return scatter(panel, rows);
  return cartesian(panel, rows);
}

interface Series {
  name: string;
  values: Array<number | null>;
}

/** Wide rows (one y column per series) or long rows (a `series` column naming each row's series). */
function pivot(panel: Panel, rows: readonly Row[]): { categories: string[]; series: Series[]; dropped: number } {
  const x = panel.x!;
  const ys = yColumns(panel);
  if (panel.series === undefined) {
    return {
      categories: columnTexts(rows.map((row) => row[x])),
      series: ys.slice(0, MAX_SERIES).map((y) => ({ name: y, values: rows.map((row) => toNumber(row[y])) })),
      dropped: Math.max(0, ys.length - MAX_SERIES),
    };
  }
  const y = ys[0]!;
  const xTexts = columnTexts(rows.map((row) => row[x]));
  const seriesTexts = columnTexts(rows.map((row) => row[panel.series!]));
  const categoryIndex = new Map<string, number>();
  const bySeries = new Map<string, Map<number, number>>();
  let dropped = 0;
  rows.forEach((row, r) => {
    const category = xTexts[r]!;
    let index = categoryIndex.get(category);
    if (index === undefined) categoryIndex.set(category, (index = categoryIndex.size));
    const name = seriesTexts[r]!;
    let values = bySeries.get(name);
    if (values === undefined) {
      if (bySeries.size >= MAX_SERIES) {
        dropped++;
        return;
      }
      bySeries.set(name, (values = new Map()));
    }
    const value = toNumber(row[y]);
    // Repeated (x, series) pairs add up, as a GROUP BY the query forgot would have.
    if (value !== null) values.set(index, (values.get(index) ?? 0) + value);
  });
  const categories = [...categoryIndex.keys()];
  const series = [...bySeries].map(([name, values]) => ({
    name,
    values: categories.map((_, i) => values.get(i) ?? null),
  }));
  return { categories, series, dropped };
}

/**
 * Keeps, per bucket of neighbouring categories, the lowest and highest point of every series: peaks
 * and dips survive, and drawing cost follows the chart's width instead of the row count.
 */
export function decimate(categories: string[], series: Series[], buckets: number): { categories: string[]; series: Series[] } {
  if (categories.length <= buckets * 2) return { categories, series };
  const keep = new Set<number>();
  const size = categories.length / buckets;
  for (let b = 0; b < buckets; b++) {
    const from = Math.floor(b * size);
    const to = Math.min(categories.length, Math.floor((b + 1) * size));
    keep.add(from);
    for (const { values } of series) {
      let low = -1;
      let high = -1;
      for (let i = from; i < to; i++) {
        const v = values[i];
        if (v === null || v === undefined) continue;
        if (low === -1 || v < values[low]!) low = i;
        if (high === -1 || v > values[high]!) high = i;
      }
      if (low !== -1) keep.add(low).add(high);
    }
  }
  keep.add(categories.length - 1);
  const indices = [...keep].sort((a, b) => a - b);
  return {
    categories: indices.map((i) => categories[i]!),
    series: series.map((s) => ({ name: s.name, values: indices.map((i) => s.values[i] ?? null) })),
  };
}

function cartesian(panel: Panel, rows: readonly Row[]): Layout {
  const pivoted = pivot(panel, rows);
  const { dropped } = pivoted;
  return (size) => {
    // A line needs a point every few pixels; grouped bars need room for every series side by side.
    const buckets = panel.type === 'bar' ? Math.max(8, Math.floor(size.width / (6 * Math.max(1, pivoted.series.length)))) : Math.floor(size.width / 3);
    const { categories, series } = decimate(pivoted.categories, pivoted.series, buckets);
    const sampled = categories.length < pivoted.categories.length;
    const fontSize = chartFontSize(size);
    const right = new Set(panel.y2 ?? []);
    const legend = series.length > 1 ? legendOption(series.map((s) => s.name), size, right) : undefined;
    // Past two lines, the legend adds to the drawing's height instead of taking it from the plot.
    const asked = size.height + Math.max(0, (legend?.height ?? 0) - 2 * (fontSize + 10));
    const room = { width: size.width - (right.size > 0 ? 120 : 64), height: asked - (legend?.height ?? 0) - 40 };
    const { labels, plot } = fittedLabels(categories, room, fontSize, (size.tallest ?? asked) - asked);
    const height = asked + plot.height - room.height;
    const top = (legend?.height ?? 0) + 16;
    const itemised = categories.length <= (panel.type === 'bar' ? MAX_SINGLE_BARS : MAX_LINE_SYMBOLS);
    return {
      height,
      option: {
        legend: legend?.option,
        // The grid shrinks until every axis label and title fits, so nothing is cut at the SVG's edges.
        grid: { left: 8, right: 16, top, bottom: 8, outerBoundsMode: 'same', outerBoundsContain: 'all' },
        xAxis: {
          type: 'category',
          data: categories,
          // Turned labels start half a band in, so the first does not run into the y axis's labels.
          boundaryGap: panel.type === 'bar' || 'rotate' in labels,
          axisLine: { lineStyle: { color: RULE } },
          axisTick: { show: false },
          axisLabel: { color: INK, fontSize, ...labels },
          ...axisTitle(panel.x_title, 'x'),
        },
        yAxis: right.size > 0
          ? [valueAxis(fontSize, axisTitle(panel.y_title, 'y'), panel.format), valueAxis(fontSize, { splitLine: { show: false } }, panel.format)]
          : valueAxis(fontSize, axisTitle(panel.y_title, 'y'), panel.format),
        series: series.map((s) => ({
          name: s.name,
          yAxisIndex: right.has(s.name) ? 1 : 0,
          type: panel.type === 'bar' ? 'bar' : 'line',
          data: s.values,
          // 'none' rather than showSymbol:false: ECharts skips building the hidden symbols entirely.
          symbol: itemised ? 'circle' : 'none',
          symbolSize: 5,
          connectNulls: false,
          lineStyle: panel.type === 'bar' ? undefined : { width: 2 },
          areaStyle: panel.type === 'area' ? { opacity: 0.22 } : undefined,
          barMaxWidth: 36,
          itemStyle: panel.type === 'bar' ? { borderRadius: [3, 3, 0, 0] } : undefined,
          // Past a few hundred bars, one path for all of them instead of one element each.
          large: panel.type === 'bar' && !itemised,
          largeThreshold: MAX_SINGLE_BARS,
        })),
      },
      hover: cartesianHover(categories, series, itemised ? undefined : top, panel.format),
      note: [
        dropped > 0 ? `Showing the first ${MAX_SERIES} series.` : '',
        sampled && panel.type === 'bar'
          ? `${pivoted.categories.length.toLocaleString('en-US')} bars are too many to draw; each stretch shows its highest and lowest.`
          : '',
      ].filter(Boolean).join(' ') || undefined,
    };
  };
}

/** Room kept around a y axis title; ECharts narrows it in small grids, where its text estimates then touch the labels. */
const Y_NAME_MARGIN = [8, 3, 8, 3];

/** An axis title centred along its axis, moved clear of the tick labels (none when the spec gives no title). */
function axisTitle(title: string | undefined, axis: 'x' | 'y'): Record<string, unknown> {
  if (title === undefined || title.trim() === '') return {};
  return { name: title, nameLocation: 'middle', nameGap: 8, nameMoveOverlap: true, nameTextStyle: { color: INK, fontWeight: 600, ...(axis === 'y' ? { textMargin: Y_NAME_MARGIN } : {}) }, nameRotate: axis === 'y' ? 90 : 0 };
}

/** Rough advance width of a label, for choosing a label layout before ECharts measures anything. */
function labelWidth(text: string, fontSize: number): number {
  return text.length * fontSize * 0.6;
}

/**
 * Every category gets its label: level when the longest fits its slot, wrapped at spaces onto two lines
 * when each word fits, else turned 45° (90° when slots are narrower than a line of text at 45°). Only
 * when turned labels would touch or eat the plot is every nth labelled.
 */
export function categoryLabels(categories: readonly string[], plot: ChartSize, fontSize: number, turns: readonly number[] = [45, 90]): Record<string, unknown> {
  const slot = plot.width / Math.max(1, categories.length) - 6;
  const longest = Math.max(0, ...categories.map((c) => labelWidth(c, fontSize)));
  if (longest <= slot) return { interval: 0, hideOverlap: false };
  const words = categories.flatMap((c) => c.split(/\s+/));
  const twoLines = categories.every((c) => labelWidth(c, fontSize) <= 2 * slot - fontSize);
  if (slot >= 3 * fontSize && twoLines && words.every((w) => labelWidth(w, fontSize) <= slot)) {
    return { interval: 0, hideOverlap: false, width: slot, overflow: 'break', lineHeight: fontSize + 2 };
  }
  // A turned label wraps onto as many lines as the gap to its neighbour holds (a line counted at 1.25 em),
  // and is turned only if it then takes at most half the plot's height. The wider margin keeps the first
  // turned label clear of the y axis's lowest label at the corner.
  for (const rotate of turns) {
    const width = turnedLabelWidth(slot + 6, longest, fontSize, rotate);
    if (width <= plot.height * 0.5) return { interval: 0, hideOverlap: false, width, overflow: 'break', lineHeight: fontSize + 2, margin: 12, rotate };
  }
  // Too many for all: every nth, counted from the end so the latest is labelled and held inside the plot;
  // the half-label more of spacing leaves room for that last label, which is right-aligned, not centred.
  const step = Math.ceil((1.5 * (longest + 12)) / (plot.width / categories.length));
  const last = categories.length - 1;
  return { interval: (index: number) => (last - index) % step === 0, hideOverlap: false, alignMaxLabel: 'right' };
}

/**
 * How wide a label turned `rotate`° is laid out: it wraps onto as many lines as `gap`, the distance to its
 * neighbour, holds across the turn (a line counted at 1.25 em); Infinity when not even one line fits.
 */
function turnedLabelWidth(gap: number, longest: number, fontSize: number, rotate: number): number {
  const lines = Math.floor((gap * Math.sin((rotate * Math.PI) / 180)) / (fontSize * 1.25));
  return lines < 1 ? Infinity : Math.max(60, Math.ceil(longest / lines) + 2 * fontSize);
}

/**
 * The category labels for a plot; where they would be thinned but would all fit turned 90° in a plot taller by
 * at most `spare` px (a small drawing), the plot grows instead, so every label stays.
 */
function fittedLabels(categories: readonly string[], plot: ChartSize, fontSize: number, spare: number): { labels: Record<string, unknown>; plot: ChartSize } {
  const labels = categoryLabels(categories, plot, fontSize);
  if (typeof labels.interval !== 'function' || spare <= 0) return { labels, plot };
  // The same half-the-plot rule as categoryLabels' turned labels.
  const longest = Math.max(0, ...categories.map((c) => labelWidth(c, fontSize)));
  const needed = 2 * turnedLabelWidth(plot.width / Math.max(1, categories.length), longest, fontSize, 90);
  if (needed - plot.height > spare) return { labels, plot };
  // Upright only: in a plot grown for them, 45° labels one line apart would touch their neighbours.
  const taller = { width: plot.width, height: needed };
  return { labels: categoryLabels(categories, taller, fontSize, [90]), plot: taller };
}

/**
 * A horizontal legend that wraps onto more lines rather than cutting names, and the height it takes; when a name
 * is longer than a line holds (small drawings), a list of entries, each broken at spaces.
 */
function legendOption(names: readonly string[], size: ChartSize, right: ReadonlySet<string>): { option: Record<string, unknown>; height: number } {
  const fontSize = chartFontSize(size);
  const label = (name: string) => (right.has(name) ? `${name} (right axis)` : name);
  const room = size.width - 32;
  const item = { icon: 'roundRect', itemWidth: 12, itemHeight: 8, formatter: label };
  // Marker and gaps take 33 px; ECharts measures text narrower than browsers draw it, so wrapping keeps a fifth in hand.
  const textRoom = Math.floor((room - 33) * 0.8);
  if (names.some((name) => labelWidth(label(name), fontSize) > room - 33)) {
    return {
      option: { ...item, orient: 'vertical', top: 0, left: 16, itemGap: 10, textStyle: { color: INK, width: textRoom, overflow: 'break', lineHeight: fontSize + 3 } },
      height: listedLegendHeight(names.map(label), size, textRoom),
    };
  }
  let lines = 1;
  let used = 0;
  for (const name of names) {
    const width = 12 + 5 + labelWidth(label(name), fontSize) + 16;
    if (used > 0 && used + width > room) {
      lines++;
      used = 0;
    }
    used += width;
  }
  return {
    option: { ...item, top: 0, left: 'center', width: room, itemGap: 16, textStyle: { color: INK } },
    height: lines * (fontSize + 10),
  };
}

function valueAxis(fontSize: number, extra: Record<string, unknown> = {}, format?: NumberFormat) {
  return {
    type: 'value',
    scale: false,
    axisLine: { show: false },
    axisTick: { show: false },
    splitLine: { lineStyle: { color: RULE } },
    axisLabel: { color: INK, fontSize, hideOverlap: true, formatter: format ? (value: number) => formatWith(format, value) : axisNumber },
    ...extra,
  };
}

function scatter(panel: Panel, rows: readonly Row[]): Layout {
  const x = panel.x!;
  const numericX = rows.length > 0 && rows.every((row) => row[x] === null || row[x] === undefined || toNumber(row[x]) !== null);
  // Even stride keeps the cloud's shape and is stable between renders, unlike random sampling.
  const stride = Math.max(1, Math.ceil(rows.length / MAX_SCATTER_POINTS));
  const sample = stride === 1 ? rows : rows.filter((_, i) => i % stride === 0);
  const groups = new Map<string, Array<[number | string, number]>>();
  const ys = yColumns(panel);
  const xTexts = numericX ? [] : columnTexts(sample.map((row) => row[x]));
  const seriesTexts = panel.series === undefined ? [] : columnTexts(sample.map((row) => row[panel.series!]));
  for (const [r, row] of sample.entries()) {
    const xValue = numericX ? toNumber(row[x]) : xTexts[r]!;
    if (xValue === null) continue;
    for (const y of panel.series === undefined ? ys : [ys[0]!]) {
      const name = panel.series === undefined ? y : seriesTexts[r]!;
      const yValue = toNumber(row[y]);
      if (yValue === null) continue;
      let points = groups.get(name);
      if (points === undefined) {
        if (groups.size >= MAX_SERIES) continue;
        groups.set(name, (points = []));
      }
      points.push([xValue, yValue]);
    }
  }
  const cloud = [...groups.values()].some((points) => points.length > MAX_SINGLE_POINTS);
  const hover = scatterHover(x, panel.series === undefined ? undefined : ys[0]!, [...groups], panel.format, cloud);
  return (size) => {
    const legend = groups.size > 1 ? legendOption([...groups.keys()], size, new Set()) : undefined;
    const fontSize = chartFontSize(size);
    return {
      option: {
        legend: legend && { ...legend.option, icon: 'circle', itemWidth: 8 },
        grid: { left: 8, right: 16, top: (legend?.height ?? 0) + 16, bottom: 8, outerBoundsMode: 'same', outerBoundsContain: 'all' },
        xAxis: numericX
          ? valueAxis(fontSize, { scale: true, axisLine: { lineStyle: { color: RULE } }, splitLine: { show: false }, ...axisTitle(panel.x_title, 'x') })
          : { type: 'category', axisLine: { lineStyle: { color: RULE } }, axisLabel: { color: INK, fontSize, hideOverlap: true }, ...axisTitle(panel.x_title, 'x') },
        yAxis: valueAxis(fontSize, { scale: true, ...axisTitle(panel.y_title, 'y') }, panel.format),
        series: [...groups].map(([name, data]) => ({ name, type: 'scatter', data, symbolSize: 6, itemStyle: { opacity: 0.75 }, large: true, largeThreshold: MAX_SINGLE_POINTS })),
      },
      hover,
      note: stride > 1 ? `Showing ${sample.length.toLocaleString('en-US')} of ${rows.length.toLocaleString('en-US')} points.` : undefined,
    };
  };
}

function formatShare(percent: number): string {
  return `${percent >= 10 || percent === 0 ? Math.round(percent) : percent.toFixed(1)}%`;
}

/** The ring's inner and outer radius: within the 62 % left of the legend, and 72 % of the asked height. */
const pieRadius = (size: ChartSize) => {
  const outer = Math.min(size.width * 0.31 - 8, size.height * 0.36);
  return [outer * 0.58, outer];
};

/** ECharts measures text narrower than browsers draw it, so its wrapping width keeps a fifth in hand. */
const pieLegendWidth = (size: ChartSize) => Math.floor((size.width * 0.38 - 24) * 0.8);
/** Beside the ring, a legend narrower than this would break words; the drawing stacks the legend under the ring. */
const MIN_SIDE_LEGEND = 60;
/** A stacked pie's ring, legend width (the whole drawing less margins and the marker) and where its legend starts. */
const stackedPie = (size: ChartSize) => {
  const outer = Math.round(Math.min(size.width, size.height) * 0.3);
  return { outer, centre: 12 + outer, legendTop: 2 * outer + 28, legendWidth: Math.floor((size.width - 46) * 0.8) };
};

/** A listed legend's height with its entries wrapped at `room` (2 em more for a wrapped one: breaking at spaces loses room). */
function listedLegendHeight(entries: readonly string[], size: ChartSize, room: number): number {
  const fontSize = chartFontSize(size);
  return entries.reduce((sum, text) => {
    const lines = Math.ceil((labelWidth(text, fontSize) + (labelWidth(text, fontSize) > room ? fontSize * 2 : 0)) / room);
    return sum + lines * (fontSize + 3) + 10;
  }, 0);
}

/** Where the ring and its legend go: side by side, or, in drawings too narrow for that, the legend under the ring. */
function pieLayout(entries: readonly string[], size: ChartSize) {
  const legend = { orient: 'vertical', icon: 'circle', itemWidth: 9, itemHeight: 9, itemGap: 10 };
  const lineHeight = chartFontSize(size) + 3;
  if (pieLegendWidth(size) >= MIN_SIDE_LEGEND) {
    const room = pieLegendWidth(size);
    return {
      height: Math.max(size.height, listedLegendHeight(entries, size, room) + 24),
      legend: { ...legend, left: '62%', top: 'middle', textStyle: { color: INK, width: room, overflow: 'break', lineHeight } },
      // In pixels, so a drawing made taller for its legend does not grow the ring into the legend.
      ring: { radius: pieRadius(size).map(Math.round), center: ['31%', '50%'] },
    };
  }
  const { outer, centre, legendTop, legendWidth } = stackedPie(size);
  return {
    height: Math.max(size.height, legendTop + listedLegendHeight(entries, size, legendWidth) + 12),
    legend: { ...legend, left: 16, top: legendTop, textStyle: { color: INK, width: legendWidth, overflow: 'break', lineHeight } },
    ring: { radius: [Math.round(outer * 0.58), outer], center: ['50%', centre] },
  };
}

function pie(panel: Panel, rows: readonly Row[]): Layout {
  const x = panel.x!;
  const y = yColumns(panel)[0]!;
  const totals = new Map<string, number>();
  const names = columnTexts(rows.map((row) => row[x]));
  for (const [r, row] of rows.entries()) {
    const value = toNumber(row[y]);
    if (value === null || value <= 0) continue;
    const name = names[r]!;
    totals.set(name, (totals.get(name) ?? 0) + value);
  }
  const slices = [...totals].map(([name, value]) => ({ name, value })).sort((a, b) => b.value - a.value);
  let note: string | undefined;
  if (slices.length > MAX_PIE_SLICES + 1) {
    const rest = slices.splice(MAX_PIE_SLICES);
    slices.push({ name: 'Other', value: rest.reduce((sum, slice) => sum + slice.value, 0) });
    note = `The smallest ${rest.length} slices are grouped as Other.`;
  }
  const total = slices.reduce((sum, slice) => sum + slice.value, 0);
  const share = new Map(slices.map((slice) => [slice.name, total > 0 ? (slice.value / total) * 100 : 0]));
  const hover: Hover = {
    item: (_, i) => slices[i] && `${slices[i].name} · ${y}: ${hoverNumber(slices[i].value, panel.format)} (${formatShare(share.get(slices[i].name) ?? 0)})`,
  };
  const entry = (name: string) => `${name}  ${formatShare(share.get(name) ?? 0)}`;
  // Outside labels get clipped in a narrow panel; a legend beside or under the ring, taller when it must, always fits.
  const entries = slices.map((slice) => entry(slice.name));
  return (size) => {
    const { height, legend, ring } = pieLayout(entries, size);
    return {
      height,
      option: {
        // Long names wrap at spaces inside the legend's room instead of ending in "..".
        legend: { ...legend, formatter: entry },
        series: [
          {
            type: 'pie',
            ...ring,
            data: slices,
            label: { show: false },
            labelLine: { show: false },
            itemStyle: { borderColor: CHART_SLICE_BORDER, borderWidth: 2 },
          },
        ],
      },
      note,
      hover,
    };
  };
}
