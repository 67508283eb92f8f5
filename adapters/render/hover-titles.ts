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

/**
 * Puts each drawn item's title inside it, the bands over the plot and the summary first, and drops
 * ECharts' SSR metadata attributes, which only its client runtime reads and this page has none.
 * `centre(i)` is the x pixel of category i; bands reach down to `bottom`, over the category labels.
 */
export function withHoverTitles(svg: string, hover: Hover, geometry?: { centre(index: number): number; bottom: number }): string {
  let out = svg.replace(
    /<([a-z]+)([^>]*?) ecmeta_series_index="(\d+)" ecmeta_data_index="(\d+)" ecmeta_ssr_type="chart"([^>]*)><\/\1>/g,
    (_, tag: string, before: string, series: string, index: string, after: string) => {
      const title = hover.item(Number(series), Number(index));
      return `<${tag}${before}${after}>${title === undefined ? '' : `<title>${escapeHtml(title)}</title>`}</${tag}>`;
    },
  );
  out = out.replace(/ ecmeta_[a-z_]+="[^"]*"/g, '');
  if (hover.summary !== undefined) out = out.replace(/^(<svg [^>]*>)/, `$1<title>${escapeHtml(hover.summary)}</title>`);
  if (hover.bands && geometry) out = out.replace(/<\/svg>\s*$/, `${bandRects(hover.bands, geometry)}</svg>`);
  return out;
}

function bandRects(bands: Bands, { centre, bottom }: { centre(index: number): number; bottom: number }): string {
  const top = bands.top;
  if (bands.count === 0) return '';
  const xs = Array.from({ length: bands.count }, (_, i) => centre(i));
  // Categories are evenly spaced: each owns the space half-way to its neighbours, the end ones alike.
  const step = xs.length > 1 ? (xs.at(-1)! - xs[0]!) / (xs.length - 1) : 20;
  const edge = (i: number) => (i === 0 ? xs[0]! - step / 2 : i === xs.length ? xs.at(-1)! + step / 2 : (xs[i - 1]! + xs[i]!) / 2);
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
