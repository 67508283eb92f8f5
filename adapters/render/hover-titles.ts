import { escapeHtml } from '../../domain/html.js';
import { formatWith, type NumberFormat } from '../../domain/number-format.js';
import { formatNumber } from './format.js';

/** What a chart's SVG says on hover, as the browser's native tooltip (a `<title>`), with no script. */
export interface Hover {
  /** The title of the item ECharts drew for one data point (a point, bar or slice). */
  item(series: number, index: number): string | undefined;
  /** Where the series are drawn as one shape per series (dense lines, large bars): the category bands. */
  bands?: Bands;
  /** Where points are drawn as one shape (a large scatter cloud): the whole chart's title. */
  summary?: string;
}

export interface Bands {
  count: number;
  /** The plot's top edge in pixels: the bands leave the legend above it alone. */
  top: number;
  /** The title of the categories from `first` to `last` (inclusive). */
  title(first: number, last: number): string;
}

/** A band is at least this wide, so a thousand-category line gets a hundred targets, not a thousand. */
const MIN_BAND_PX = 8;

/** A number as a hover title shows it: in the panel's format, else in full with separators. */
export const hoverNumber = (value: number | null | undefined, format?: NumberFormat): string =>
  value === null || value === undefined ? '—' : format ? formatWith(format, value) : formatNumber(value);

// ECharts writes an item's metadata as these attributes, in this order; one pass titles the item and drops them.
const ECHARTS_META = / ecmeta_series_index="(\d+)" ecmeta_data_index="(\d+)"(?: ecmeta_ssr_type="([a-z]+)")?(?: ecmeta_silent="true")?([^>]*)>(<\/)?/g;

/**
 * Puts each drawn item's title inside it, the bands over the plot and the summary first, and drops
 * ECharts' SSR metadata attributes, which only its client runtime reads and this page has none.
 * `centre(i)` is the x pixel of category i; bands reach down to `bottom`, over the category labels.
 */
export function withHoverTitles(svg: string, hover: Hover, geometry?: { centre(index: number): number; bottom: number }): string {
  let out = svg.replace(ECHARTS_META, (_, series: string, index: string, type: string | undefined, rest: string, closes: string | undefined) => {
    const title = type === 'chart' && closes ? hover.item(Number(series), Number(index)) : undefined;
    return `${rest}>${title === undefined ? '' : `<title>${escapeHtml(title)}</title>`}${closes ?? ''}`;
  });
  if (hover.summary !== undefined) out = out.replace(/^(<svg [^>]*>)/, `$1<title>${escapeHtml(hover.summary)}</title>`);
  if (hover.bands && geometry) {
    const end = out.lastIndexOf('</svg>');
    out = `${out.slice(0, end)}${bandRects(hover.bands, geometry)}${out.slice(end)}`;
  }
  return out;
}

function bandRects(bands: Bands, { centre, bottom }: { centre(index: number): number; bottom: number }): string {
  const top = bands.top;
  if (bands.count === 0) return '';
  // Categories are evenly spaced: the two ends place them all, and each owns the space half-way to its
  // neighbours (asking ECharts for each of a thousand positions costs more than drawing the chart).
  const [start, end] = [centre(0), centre(bands.count - 1)];
  const step = bands.count > 1 ? (end - start) / (bands.count - 1) : 20;
  const edge = (i: number) => start + (i - 0.5) * step;
  const rects: string[] = [];
  let first = 0;
  while (first < bands.count) {
    let last = first;
    while (last + 1 < bands.count && edge(last + 1) - edge(first) < MIN_BAND_PX) last++;
    const [left, right] = [edge(first), edge(last + 1)];
    rects.push(
      `<rect x="${left.toFixed(1)}" y="${top}" width="${(right - left).toFixed(1)}" height="${bottom - top}" fill="transparent"><title>${escapeHtml(bands.title(first, last))}</title></rect>`,
    );
    first = last + 1;
  }
  return `<g class="hover-bands">${rects.join('')}</g>`;
}

/** Each point or bar titled with its category, series and value; bands instead where none is its own element. */
export function cartesianHover(categories: string[], series: ReadonlyArray<{ name: string; values: Array<number | null> }>, bandsTop: number | undefined, format: NumberFormat | undefined): Hover {
  const range = (values: Array<number | null>, first: number, last: number) => {
    const present = values.slice(first, last + 1).filter((v): v is number => v !== null);
    if (present.length === 0) return '—';
    const [low, high] = [Math.min(...present), Math.max(...present)];
    return low === high ? hoverNumber(low, format) : `${hoverNumber(low, format)}–${hoverNumber(high, format)}`;
  };
  return {
    item: (s, i) => (series[s] && i < categories.length ? `${categories[i]} · ${series[s]!.name}: ${hoverNumber(series[s]!.values[i], format)}` : undefined),
    ...(bandsTop === undefined
      ? {}
      : {
          bands: {
            count: categories.length,
            top: bandsTop,
            title: (first, last) =>
              `${first === last ? categories[first] : `${categories[first]} – ${categories[last]}`} · ${series.map((s) => `${s.name}: ${range(s.values, first, last)}`).join(' · ')}`,
          },
        }),
  };
}

export type Point = [number | string, number];

/** Each point titled with its x and y; a cloud drawn as one shape gets one title with each series' spans (`y` names the values of series from a column). */
export function scatterHover(x: string, y: string | undefined, groups: Array<[string, Point[]]>, format: NumberFormat | undefined, cloud: boolean): Hover {
  const xText = (value: number | string) => (typeof value === 'number' ? hoverNumber(value) : value);
  const span = (values: number[], yFormat?: NumberFormat) => `${hoverNumber(Math.min(...values), yFormat)}–${hoverNumber(Math.max(...values), yFormat)}`;
  const summary = () => groups
    .map(([name, points]) => {
      const xs = points.map(([px]) => px).filter((px): px is number => typeof px === 'number');
      const xPart = xs.length === points.length && xs.length > 0 ? `, ${x} ${span(xs)}` : '';
      return `${name}: ${points.length.toLocaleString('en-US')} points${xPart}, ${y ?? name} ${span(points.map(([, py]) => py), format)}`;
    })
    .join('; ');
  return {
    item: (s, i) => {
      const point = groups[s]?.[1][i];
      return point && `${x} ${xText(point[0])} · ${groups[s]![0]}: ${hoverNumber(point[1], format)}`;
    },
    ...(cloud ? { summary: summary() } : {}),
  };
}
