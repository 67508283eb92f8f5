import * as echarts from 'echarts/core';
import { BarChart, LineChart, PieChart, ScatterChart } from 'echarts/charts';
import { GridComponent, LegendComponent } from 'echarts/components';
import { SVGRenderer } from 'echarts/renderers';
import type { ChartType, Panel, Row } from '../../domain/dashboard-spec.js';
import { yColumns } from '../../domain/dashboard-spec.js';
import { axisNumber, columnTexts, toNumber } from './format.js';
import { escapeHtml } from '../../domain/html.js';
import { CHART_INK, CHART_RULE, CHART_SLICE_BORDER } from './page-style.js';
import { cartesianHover, hoverNumber, scatterHover, withHoverTitles, type Hover } from './hover-titles.js';
import { formatWith, type NumberFormat } from '../../domain/number-format.js';

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
}

/** The data work for a chart is done once; the option for each drawing size comes from it. */
type Layout = (size: ChartSize) => Prepared;

/**
 * Server-side SVGs of one chart panel, one per size (desktop and phone drawings share the data work).
 * Every ECharts instance is disposed, even when drawing throws.
 */
export function renderChart(panel: Panel & { type: ChartType }, rows: readonly Row[], sizes: ChartSize[], label: string): Chart[] {
  const layout = prepare(panel, rows);
  return sizes.map((size) => {
    const { option, note, hover } = layout(size);
    const chart = echarts.init(null, null, { renderer: 'svg', ssr: true, width: size.width, height: size.height });
    try {
      chart.setOption({
        animation: false,
        color: PALETTE,
        textStyle: { fontFamily: FONT, fontSize: 12, color: INK },
        ...option,
      });
      const centre = (index: number) => Number(chart.convertToPixel({ xAxisIndex: 0 }, index));
      const svg = withHoverTitles(chart.renderToSVGString(), hover, hover.bands && { centre, bottom: size.height });
      return { svg: responsive(svg, label), note };
    } finally {
      chart.dispose();
    }
  });
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
    const legend = series.length > 1;
    const narrow = size.width < 480;
    const top = legend ? (narrow ? 48 : 36) : 16;
    const itemised = categories.length <= (panel.type === 'bar' ? MAX_SINGLE_BARS : MAX_LINE_SYMBOLS);
    return {
      option: {
        legend: legend ? { top: 0, left: 'center', icon: 'roundRect', itemWidth: 12, itemHeight: 8, itemGap: 16, textStyle: { color: INK } } : undefined,
        // The grid shrinks until every axis label fits, so the end labels are not cut at the SVG's edges.
        grid: { left: 8, right: 16, top, bottom: 8, outerBoundsMode: 'same', outerBoundsContain: 'axisLabel' },
        xAxis: {
          type: 'category',
          data: categories,
          boundaryGap: panel.type === 'bar',
          axisLine: { lineStyle: { color: RULE } },
          axisTick: { show: false },
          // Overlap checks are cheap here, since decimation caps the category count.
          axisLabel: { color: INK, hideOverlap: true },
        },
        yAxis: valueAxis({}, panel.format),
        series: series.map((s) => ({
          name: s.name,
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

function valueAxis(extra: Record<string, unknown> = {}, format?: NumberFormat) {
  return {
    type: 'value',
    scale: false,
    axisLine: { show: false },
    axisTick: { show: false },
    splitLine: { lineStyle: { color: RULE } },
    axisLabel: { color: INK, hideOverlap: true, formatter: format ? (value: number) => formatWith(format, value) : axisNumber },
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
  const legend = groups.size > 1;
  const cloud = [...groups.values()].some((points) => points.length > MAX_SINGLE_POINTS);
  const hover = scatterHover(x, panel.series === undefined ? undefined : ys[0]!, [...groups], panel.format, cloud);
  return (size) => ({
    option: {
      legend: legend ? { top: 0, left: 'center', icon: 'circle', itemWidth: 8, itemHeight: 8, itemGap: 16, textStyle: { color: INK } } : undefined,
      grid: { left: 8, right: 16, top: legend ? (size.width < 480 ? 48 : 36) : 16, bottom: 8 },
      xAxis: numericX
        ? valueAxis({ scale: true, axisLine: { lineStyle: { color: RULE } }, splitLine: { show: false } })
        : { type: 'category', axisLine: { lineStyle: { color: RULE } }, axisLabel: { color: INK, hideOverlap: true } },
      yAxis: valueAxis({ scale: true }, panel.format),
      series: [...groups].map(([name, data]) => ({ name, type: 'scatter', data, symbolSize: 6, itemStyle: { opacity: 0.75 }, large: true, largeThreshold: MAX_SINGLE_POINTS })),
    },
    hover,
    note: stride > 1 ? `Showing ${sample.length.toLocaleString('en-US')} of ${rows.length.toLocaleString('en-US')} points.` : undefined,
  });
}

function formatShare(percent: number): string {
  return `${percent >= 10 || percent === 0 ? Math.round(percent) : percent.toFixed(1)}%`;
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
  // Outside labels get clipped in a narrow panel; a legend beside the ring with each share always fits.
  return () => ({
    option: {
      legend: {
        orient: 'vertical',
        left: '62%',
        top: 'middle',
        icon: 'circle',
        itemWidth: 9,
        itemHeight: 9,
        itemGap: 10,
        textStyle: { color: INK, width: 120, overflow: 'truncate' },
        formatter: (name: string) => `${name}  ${formatShare(share.get(name) ?? 0)}`,
      },
      series: [
        {
          type: 'pie',
          radius: ['42%', '72%'],
          center: ['32%', '50%'],
          data: slices,
          label: { show: false },
          labelLine: { show: false },
          itemStyle: { borderColor: CHART_SLICE_BORDER, borderWidth: 2 },
        },
      ],
    },
    note,
    hover,
  });
}
