import type { ImageTheme } from '../../domain/page-theme.js';

/** The page's only stylesheet, inlined (the CSP allows inline styles and nothing external). */
export const CONTENT_SECURITY_POLICY = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'";
/** A page with parameters submits its GET form to itself, and nowhere else. */
export const PARAMS_PAGE_POLICY = CONTENT_SECURITY_POLICY.replace("form-action 'none'", "form-action 'self'");


/** Both themes' colours: the page switches between them with CSS variables, the images draw with one set. */
export const THEME_COLOURS: Readonly<Record<ImageTheme, Readonly<Record<string, string>>>> = {
  light: {
    bg: '#f5f7fb', text: '#1e293b', heading: '#0f172a', muted: '#475569', meta: '#5b6a80', panel: '#ffffff',
    border: '#e2e8f0', dashed: '#cbd5e1', 'table-border': '#eef2f7', 'th-bg': '#f8fafc', th: '#334155', stripe: '#fbfcfe',
    null: '#5b6a80', prose: '#334155', link: '#3451d1', 'code-bg': '#f1f5f9', footer: '#5b6a80', 'chart-ink': '#475569', 'chart-rule': '#e2e8f0',
    good: '#15803d', bad: '#b91c1c',
  },
  dark: {
    bg: '#0b1120', text: '#e2e8f0', heading: '#f8fafc', muted: '#cbd5e1', meta: '#a3b1c6', panel: '#161e2e',
    border: '#2a3548', dashed: '#475569', 'table-border': '#243044', 'th-bg': '#1c263a', th: '#cbd5e1', stripe: '#1a2334',
    null: '#a3b1c6', prose: '#cbd5e1', link: '#a5b8ff', 'code-bg': '#0f172a', footer: '#a3b1c6', 'chart-ink': '#cbd5e1', 'chart-rule': '#2a3548',
    good: '#4ade80', bad: '#fca5a5',
  },
};

/** The colours ECharts writes into chart SVGs (charts.ts), which the stylesheet repaints per theme. */
export const CHART_INK = '#475569';
export const CHART_RULE = '#e2e8f0';
export const CHART_SLICE_BORDER = '#fff';

const variables = (theme: ImageTheme) =>
  `color-scheme:${theme};` + Object.entries(THEME_COLOURS[theme]).map(([name, value]) => `--${name}:${value}`).join(';');
// Follows the reader's setting unless the host pinned a theme with `?theme=` (data-theme on <html>).
const themeRules =
  `:root{${variables('light')}}` +
  `@media (prefers-color-scheme:dark){:root:not([data-theme=light]){${variables('dark')}}}` +
  `:root[data-theme=dark]{${variables('dark')}}` +
  `.chart-svg [fill="${CHART_INK}"]{fill:var(--chart-ink)}.chart-svg [stroke="${CHART_RULE}"]{stroke:var(--chart-rule)}` +
  `.chart-svg [stroke="${CHART_SLICE_BORDER}"]{stroke:var(--panel)}`;

/** The page's widest content (1240 px less padding) and its grid gap, which chart drawings are sized for. */
const CONTENT_WIDTH = 1192;
const GAP = 16;
/** A panel's padding and border on both sides. */
const PANEL_CHROME = 38;

/** A chart's drawing width at `span` columns on the widest page, so desktop text shows at the size it was drawn. */
export function chartWidth(span: number): number {
  const column = (CONTENT_WIDTH - 11 * GAP) / 12;
  return Math.round(span * column + (span - 1) * GAP - PANEL_CHROME);
}

/** Whether a chart also gets a phone drawing: one narrower than this is readable when scaled to a phone. */
export function hasNarrowDrawing(span: number): boolean {
  return chartWidth(span) > 360;
}

/** Drawings narrower than this are shown near their drawn size on phones, so they get a point larger text. */
const LARGE_TEXT_BELOW = 480;
/** The text size (px) a chart drawing of `width` is drawn with. */
export function drawingFontSize(width: number): number {
  return width < LARGE_TEXT_BELOW ? 13 : 12;
}

/** The page's breakpoints and paddings (PAGE_CSS), which decide how wide a chart's figure is. */
const PHONE_UP_TO = 640;
const TABLET_UP_TO = 960;
const PAGE_PADDING = 48;
const PHONE_PAGE_CHROME = 58;
/** On tablets, charts of up to this many columns take half a row, wider ones the whole row. */
const HALF_ROW_UP_TO = 5;

/**
 * The width (px) of a chart figure of `span` columns on a page `page` px wide, as PAGE_CSS lays it out:
 * full width on phones, half or full rows on tablets, its own columns above.
 */
export function figureWidth(span: number, page: number): number {
  if (page <= PHONE_UP_TO) return page - PHONE_PAGE_CHROME;
  const columns = page <= TABLET_UP_TO ? (span <= HALF_ROW_UP_TO ? 6 : 12) : span;
  const column = (Math.min(page, CONTENT_WIDTH + PAGE_PADDING) - PAGE_PADDING - 11 * GAP) / 12;
  return columns * column + (columns - 1) * GAP - PANEL_CHROME;
}

/** The narrowest page the drawings are made for (older and smaller phones). */
const NARROWEST_PAGE = 320;
/** The narrowest figure a chart of `span` columns gets from NARROWEST_PAGE up: figures grow with the page between breakpoints. */
const narrowestFigure = (span: number) =>
  Math.min(...[NARROWEST_PAGE, PHONE_UP_TO + 1, TABLET_UP_TO + 1].map((page) => figureWidth(span, page)));

export type DrawingKind = 'wide' | 'large' | 'medium' | 'narrow' | 'small';
export interface ChartDrawing {
  kind: DrawingKind;
  width: number;
  /** The figure width (px) at and below which this drawing replaces the one before it; 0 for the wide one. */
  below: number;
}

/** No drawing is shown past 1.5 times its width, where its text would read oversized. */
const MAX_UPSCALE = 1.5;
/** The phone drawing, with 13 px text. */
export const NARROW_WIDTH = 340;
/** Between phone and desktop: drawings with 12 px text. */
export const MEDIUM_WIDTH = 520;
export const LARGE_WIDTH = 800;
/**
 * The small drawing, with 13 px text, for figures narrower than the phone or a small wide drawing can serve:
 * narrow enough for a three-column chart on a 961 px page (178 px), wide enough to be shown up to where the
 * phone drawing and a four-column chart's wide one take over (decision 0275).
 */
export const SMALL_WIDTH = 200;

/** The narrowest figure (rounded up) a drawing fits before its text shrinks under 11 px. */
const legibleTo = (width: number) => Math.ceil((width * 11) / drawingFontSize(width));

/**
 * The drawings a chart of `span` columns gets, widest first: the wide one at its desktop width, then, where the
 * wide one would shrink its text under 11 px before the phone drawing takes over, a medium one (and a large one
 * where the medium would otherwise be blown past 1.5 times), then the phone drawing, and last a small one where
 * the drawing before it would still shrink its text under 11 px in the narrowest figure the chart gets.
 */
export function chartDrawings(span: number): ChartDrawing[] {
  const wide = chartWidth(span);
  const kinds: Array<[DrawingKind, number]> = [['wide', wide]];
  if (hasNarrowDrawing(span)) {
    if (legibleTo(wide) > MEDIUM_WIDTH * MAX_UPSCALE) kinds.push(['large', LARGE_WIDTH]);
    if (legibleTo(wide) > NARROW_WIDTH * MAX_UPSCALE) kinds.push(['medium', MEDIUM_WIDTH]);
    kinds.push(['narrow', NARROW_WIDTH]);
  }
  const last = kinds[kinds.length - 1]![1];
  if (last > SMALL_WIDTH && legibleTo(last) > narrowestFigure(span)) kinds.push(['small', SMALL_WIDTH]);
  return kinds.map(([kind, width], i) => {
    if (i === 0) return { kind, width, below: 0 };
    const before = legibleTo(kinds[i - 1]![1]);
    return { kind, width, below: kind === 'narrow' || kind === 'small' ? Math.min(Math.floor(width * MAX_UPSCALE), before) : before };
  });
}

/** One container query per drawing after the first: at and below its `below` width, the drawing before it hides and it shows. */
const swapRules = (kinds: (kind: DrawingKind) => boolean) =>
  Array.from({ length: 12 }, (_, i) => i + 1)
    .flatMap((span) => {
      const drawings = chartDrawings(span);
      return drawings.slice(1).flatMap(({ kind, below }, i) => !kinds(kind) ? [] :
        [`@container (max-width:${below}px){.span-${span} .chart-${drawings[i]!.kind}{display:none}.span-${span} .chart-${kind}{display:block}}`]);
    })
    .join('');
// Later rules win, so only one drawing shows; the small drawing's rules come after the phone rules, which it overrides.
const drawingSwaps = swapRules((kind) => kind !== 'small');
const smallSwaps = swapRules((kind) => kind === 'small');

const spans = Array.from({ length: 12 }, (_, i) => `.span-${i + 1}{grid-column:span ${i + 1}}`).join('');
const halfSpans = Array.from({ length: HALF_ROW_UP_TO }, (_, i) => `.span-${i + 1}`).join(',');
const fullSpans = Array.from({ length: 12 - HALF_ROW_UP_TO }, (_, i) => `.span-${i + HALF_ROW_UP_TO + 1}`).join(',');

export const PAGE_CSS = `
${themeRules}
*,*::before,*::after{box-sizing:border-box}
html{-webkit-text-size-adjust:100%;text-size-adjust:100%}
body{margin:0;background:var(--bg);color:var(--text);font:15px/1.55 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;-webkit-font-smoothing:antialiased}
.page{max-width:1240px;margin:0 auto;padding:32px 24px 40px}
.page-header{margin:0 0 24px}
h1{font-size:28px;line-height:1.2;font-weight:700;letter-spacing:-0.01em;margin:0 0 6px;color:var(--heading);overflow-wrap:anywhere}
.description{margin:0 0 8px;max-width:72ch;color:var(--muted);white-space:pre-line;overflow-wrap:anywhere}
.meta{margin:0;font-size:13px;color:var(--meta)}
.grid{display:grid;grid-template-columns:repeat(12,minmax(0,1fr));gap:16px}
${spans}
.panel{min-width:0;background:var(--panel);border:1px solid var(--border);border-radius:12px;padding:16px 18px;box-shadow:0 1px 2px rgba(15,23,42,.04)}
.panel-title{font-size:15px;font-weight:600;margin:0 0 10px;color:var(--heading);overflow-wrap:anywhere}
.chart{margin:0;container-type:inline-size}
.chart-svg{display:block;width:100%;height:auto}
.chart-large,.chart-medium,.chart-narrow,.chart-small{display:none}
.panel-note{margin:8px 0 0;font-size:12px;color:var(--meta)}
.empty{display:flex;align-items:center;justify-content:center;min-height:120px;margin:0;padding:16px;border:1px dashed var(--dashed);border-radius:8px;color:var(--meta);font-size:14px;text-align:center;overflow-wrap:anywhere}
.grid>.stat{align-self:start}
.stat .panel-title{font-size:13px;font-weight:500;color:var(--meta);margin-bottom:4px}
.stat-value{margin:0;font-size:34px;line-height:1.15;font-weight:700;letter-spacing:-0.02em;color:var(--heading);font-variant-numeric:tabular-nums;overflow-wrap:anywhere}
.stat-delta{margin:4px 0 0;font-size:13px;font-weight:600;font-variant-numeric:tabular-nums;overflow-wrap:anywhere}
.stat-delta.good{color:var(--good)}.stat-delta.bad{color:var(--bad)}.stat-delta.flat{color:var(--meta)}
.sparkline{display:block;width:100%;height:36px;margin-top:8px;color:var(--link);overflow:visible}
.sr-only{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%);white-space:nowrap}
.stat .empty{min-height:0;justify-content:flex-start;border:0;padding:0}
.table-wrap{overflow-x:auto;-webkit-overflow-scrolling:touch;border:1px solid var(--table-border);border-radius:8px}
table{border-collapse:collapse;width:100%;font-size:13px}
caption{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%);white-space:nowrap}
th,td{padding:7px 10px;text-align:left;vertical-align:top;border-bottom:1px solid var(--table-border);overflow-wrap:break-word;min-width:4em}
th{background:var(--th-bg);color:var(--th);font-weight:600}
th .zone{font-weight:400;color:var(--meta);white-space:nowrap}
tbody tr:last-child td{border-bottom:0}
tbody tr:nth-child(even) td{background:var(--stripe)}
.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.null{color:var(--null)}
.prose{color:var(--prose);overflow-wrap:anywhere}
.prose>:first-child{margin-top:0}.prose>:last-child{margin-bottom:0}
.prose h3,.prose h4,.prose h5,.prose h6{color:var(--heading);line-height:1.3;margin:1.1em 0 .4em}
.prose h3{font-size:18px}.prose h4{font-size:16px}.prose h5,.prose h6{font-size:15px}
.prose p,.prose ul,.prose ol,.prose pre,.prose blockquote{margin:0 0 .8em}
.prose ul,.prose ol{padding-left:1.4em}
.prose a{color:var(--link);text-decoration:underline;text-underline-offset:2px}
.prose code{font:13px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:var(--code-bg);border-radius:4px;padding:1px 4px}
.prose pre{background:var(--code-bg);border-radius:8px;padding:10px 12px;overflow-x:auto}
.prose pre code{background:none;padding:0}
.prose blockquote{border-left:3px solid var(--dashed);padding-left:12px;color:var(--muted)}
.params{display:flex;flex-wrap:wrap;gap:10px 16px;align-items:flex-end;margin:0 0 20px;padding:12px 14px;background:var(--panel);border:1px solid var(--border);border-radius:12px}
.params label{display:flex;flex-direction:column;gap:4px;font-size:13px;color:var(--meta)}
.params input,.params select,.params button{font:inherit;font-size:14px;color:var(--text);background:var(--bg);border:1px solid var(--border);border-radius:6px;padding:5px 8px;min-height:32px}
.params .range{display:flex;gap:6px}
.params button{cursor:pointer;font-weight:600}
.notice{margin:0 0 16px;padding:10px 14px;border:1px solid var(--dashed);border-radius:8px;color:var(--text);overflow-wrap:anywhere}
.page-footer{margin-top:28px;font-size:12px;color:var(--footer)}
.page-footer a{color:var(--footer)}
${drawingSwaps}
@media (max-width:${TABLET_UP_TO}px){${halfSpans}{grid-column:span 6}${fullSpans}{grid-column:span 12}}
@media (max-width:${PHONE_UP_TO}px){
.page{padding:20px 14px 28px}
h1{font-size:23px}
.grid{grid-template-columns:repeat(2,minmax(0,1fr));gap:12px}
.grid>.panel{grid-column:1/-1}
.grid>.stat{grid-column:span 1}
.panel{padding:14px}
.has-narrow .chart-wide,.has-narrow .chart-large,.has-narrow .chart-medium{display:none}
.has-narrow .chart-narrow{display:block}
.stat-value{font-size:26px}
}
${smallSwaps}
`
  .trim()
  .replace(/\n/g, '');
