import { expect } from 'chai';
import { parseDashboardSpec, type Panel, type ChartType } from '../../domain/dashboard-spec.js';
import { categoryLabels, PALETTE, renderChart } from '../../adapters/render/charts.js';
import { dashboardImageSvg } from '../../adapters/render/dashboard-image.js';
import { chartDrawings, chartWidth, drawingFontSize, figureWidth, PAGE_CSS, type ChartDrawing } from '../../adapters/render/page-style.js';
import { SMALL } from '../../adapters/render/echarts-page-renderer.js';
import { crowdedSpec, REGIONS, shareableSpec } from './render-fixture.js';

const spec = shareableSpec();
const panel = (id: string) => spec.panels.find((p) => p.id === id)! as Panel & { type: ChartType };
const rows = (id: string) => spec.data![panel(id).query!]!;
const WIDE = { width: 550, height: 300 };
const PHONE = { width: 340, height: 300 };
/** The page widths the drawings are made for, from small phones to wide desktops. */
const PAGES = Array.from({ length: 1600 - 320 + 1 }, (_, i) => 320 + i);
const draw = (p: Panel & { type: ChartType }, size = WIDE) => renderChart(p, rows(p.id), [size], 'chart', 'p0')[0]!.svg;

/** The text of every <text> element, in order (wrapped labels come as one element per line). */
const texts = (svg: string) => [...svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1]!.trim().replaceAll('&amp;', '&'));
const fontSizes = (svg: string) => new Set([...svg.matchAll(/font-size:(\d+)px/g)].map((m) => Number(m[1])));

/** The points of a path of lines, absolute (M, L) or relative to the point before (l, and its implicit repeats). */
function pathPoints(d: string): Array<[number, number]> {
  const points: Array<[number, number]> = [];
  for (const [, command, rest] of d.matchAll(/([MLl])([^MLl]*)/g)) {
    const numbers = [...rest!.matchAll(/-?(?:\d+\.?\d*|\.\d+)/g)].map((m) => Number(m[0]));
    for (let i = 0; i + 1 < numbers.length; i += 2) {
      const [x, y] = command === 'l' ? points.at(-1)! : [0, 0];
      points.push([x + numbers[i]!, y + numbers[i + 1]!]);
    }
  }
  return points;
}

/** The vertical extent, in pixels, of the line drawn in `colour`. */
function lineSpread(svg: string, colour: string): number {
  const path = new RegExp(`<path d="([^"]+)" fill="none"[^>]*stroke="${colour}"`).exec(svg);
  expect(path, `a line in ${colour}`).to.not.equal(null);
  const ys = pathPoints(path![1]!).map(([, y]) => y);
  return Math.max(...ys) - Math.min(...ys);
}

describe('adapters: chart axes, labels and legends', () => {
  it('titles the axes with x_title and y_title, at both sizes', () => {
    for (const size of [WIDE, PHONE]) {
      const words = texts(draw(panel('by-region'), size));
      expect(words, `${size.width}`).to.include.members(['Region', 'Revenue (EUR)']);
    }
    expect(texts(draw(panel('seats')))).to.include.members(['Seats', 'Spend (EUR)']);
    expect(texts(draw({ ...panel('by-region'), x_title: undefined, y_title: undefined }))).to.not.include.members(['Region']);
  });

  it('draws y2 series against a right axis, so a small-scale series is no longer flat', () => {
    const withY2 = draw(panel('trend'));
    const without = draw({ ...panel('trend'), y2: undefined });
    expect(lineSpread(withY2, PALETTE[1]!)).to.be.greaterThan(40);
    expect(lineSpread(without, PALETTE[1]!)).to.be.lessThan(2);
    expect(texts(withY2)).to.include.members(['conversion (right axis)', '3.5', '250K']);
    expect(texts(without)).to.not.include('conversion (right axis)');
  });

  it('keeps every category label of a bar chart, wrapping or turning them, at desktop and phone widths', () => {
    for (const size of [WIDE, PHONE, { width: 248, height: 300 }]) {
      const words = texts(draw(panel('by-region'), size)).join(' ');
      for (const region of REGIONS) for (const word of region.split(' ')) expect(words, `${size.width}: ${region}`).to.contain(word);
      expect(words).to.not.match(/\.\.|…/);
    }
  });

  it('chooses level, wrapped, turned or thinned labels by the room each category has', () => {
    const plot = { width: 480, height: 240 };
    expect(categoryLabels(['Jan', 'Feb', 'Mar'], plot, 12)).to.deep.equal({ interval: 0, hideOverlap: false });
    expect(categoryLabels(REGIONS, plot, 12)).to.include({ interval: 0, overflow: 'break' }).and.not.have.property('rotate');
    expect(categoryLabels(REGIONS, { width: 270, height: 240 }, 13)).to.include({ interval: 0, rotate: 45 });
    const months = Array.from({ length: 12 }, (_, i) => `2025-${String(i + 1).padStart(2, '0')}-01`);
    expect(categoryLabels(months, { width: 270, height: 240 }, 13)).to.include({ interval: 0, rotate: 90 });
    const days = Array.from({ length: 90 }, (_, i) => `day ${i}`);
    const thinned = categoryLabels(days, plot, 12) as { interval: (index: number) => boolean };
    const labelled = days.filter((_, i) => thinned.interval(i));
    expect(labelled).to.include('day 89');
    expect(labelled.length).to.be.within(5, 12);
  });

  it('wraps long legend names instead of cutting them', () => {
    for (const size of [{ width: 550, height: 300 }, PHONE]) {
      const svg = draw(panel('mix'), size);
      expect(texts(svg).join(' '), `${size.width}`).to.match(/Middle East &\s+Africa\s+9\.6%/);
      expect(svg).to.not.match(/\.\.|…/);
    }
    const many = parseDashboardSpec({
      title: 'T',
      data: { d: [Object.fromEntries([['x', 'a'], ...REGIONS.map((r, i) => [r, i + 1])])] },
      panels: [{ id: 'p', type: 'line', query: 'd', x: 'x', y: REGIONS }],
    });
    const svg = renderChart(many.panels[0] as Panel & { type: ChartType }, many.data!.d!, [PHONE], 'c', 'p0')[0]!.svg;
    expect(texts(svg)).to.include.members(REGIONS);
  });

  it('escapes markup in axis titles, in the page and in images', () => {
    const attack = '</text><script>alert(1)</script><text>';
    const svg = draw({ ...panel('by-region'), x_title: attack, y_title: '"><img src=x onerror=alert(1)>' });
    expect(svg).to.not.match(/<script|<img/i);
    expect(svg).to.contain('&lt;/text&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;text&gt;');
    const withAttack = parseDashboardSpec({ ...JSON.parse(JSON.stringify(spec)), panels: [{ ...panel('by-region'), x_title: attack }] });
    const image = dashboardImageSvg(withAttack, {}, { fallbackTitle: 'T', renderedAt: new Date(), theme: 'dark' })!.svg;
    expect(image).to.not.match(/<script/i);
  });

  it('swaps in the next drawing by the figure\'s width: where the one before would show its text under 11 px, none shown past 1.5 times its width', () => {
    expect([5, 6, 12].map(chartWidth)).to.deep.equal([449, 550, 1154]);
    expect(PAGE_CSS).to.contain('.chart{margin:0;container-type:inline-size}');
    // A 449 px wide drawing has 13 px text, so it serves down to 380 px.
    expect(PAGE_CSS).to.contain('@container (max-width:380px){.span-5 .chart-wide{display:none}.span-5 .chart-narrow{display:block}}');
    expect(PAGE_CSS).to.contain('@container (max-width:505px){.span-6 .chart-wide{display:none}.span-6 .chart-narrow{display:block}}');
    expect(PAGE_CSS).to.contain(
      '@container (max-width:1058px){.span-12 .chart-wide{display:none}.span-12 .chart-large{display:block}}' +
        '@container (max-width:734px){.span-12 .chart-large{display:none}.span-12 .chart-medium{display:block}}' +
        '@container (max-width:477px){.span-12 .chart-medium{display:none}.span-12 .chart-narrow{display:block}}',
    );
    expect(PAGE_CSS).to.not.contain('.span-4 .chart-narrow');
    for (let span = 1; span <= 12; span++) {
      const drawings = chartDrawings(span);
      drawings.forEach((d, i) => {
        if (i === 0) return;
        const before = drawings[i - 1]!;
        // Where a drawing takes over, the one before still shows its text at 11 px or more...
        expect(d.below * drawingFontSize(before.width) / before.width, `span ${span} ${before.kind}`).to.be.at.least(11);
        // ...and this one, shown up to there, is never blown past 1.5 times its width.
        expect(d.below / d.width, `span ${span} ${d.kind}`).to.be.at.most(1.5);
      });
    }
    expect(chartDrawings(12).map((d) => d.kind)).to.deep.equal(['wide', 'large', 'medium', 'narrow', 'small']);
    expect(chartDrawings(7).map((d) => d.kind)).to.deep.equal(['wide', 'medium', 'narrow', 'small']);
  });

  /** The drawing PAGE_CSS shows for a chart of `span` columns on a page `page` px wide, and its figure's width. */
  function shownDrawing(span: number, page: number): { drawing: ChartDrawing; figure: number } {
    const drawings = chartDrawings(span);
    const figure = figureWidth(span, page);
    // Later container rules win, and each takes over below a narrower figure than the one before it.
    let drawing = drawings.filter((d, i) => i === 0 || figure <= d.below).pop()!;
    // Phones show the phone drawing whatever the figure; only the small drawing's rules come after theirs.
    const narrow = drawings.find((d) => d.kind === 'narrow');
    if (page <= 640 && narrow && drawing.kind !== 'small') drawing = narrow;
    return { drawing, figure };
  }

  it('adds a small drawing where a chart\'s narrowest figure would shrink the one before it, so text stays 11 px or more from 320 to 1600 px', () => {
    expect(chartDrawings(3).map((d) => [d.kind, d.width, d.below])).to.deep.equal([['wide', 248, 0], ['small', 200, 210]]);
    expect(chartDrawings(4).map((d) => [d.kind, d.width, d.below])).to.deep.equal([['wide', 349, 0], ['small', 200, 296]]);
    expect(chartDrawings(6).map((d) => d.kind)).to.deep.equal(['wide', 'narrow', 'small']);
    // Two columns are narrower than the small drawing itself: no drawing would help, so none is added.
    expect(chartDrawings(2).map((d) => d.kind)).to.deep.equal(['wide']);
    expect(chartDrawings(1).map((d) => d.kind)).to.deep.equal(['wide']);
    // The three-column chart on a 961 px page is the narrowest figure any drawing is made for.
    expect(Math.round(figureWidth(3, 961))).to.equal(178);
    expect(figureWidth(12, 320)).to.equal(262);
    for (let span = 3; span <= 12; span++) {
      for (const page of PAGES) {
        const { drawing, figure } = shownDrawing(span, page);
        const text = (drawingFontSize(drawing.width) * figure) / drawing.width;
        expect(text, `span ${span} at ${page} px: ${drawing.kind} in ${figure.toFixed(1)} px`).to.be.at.least(11);
        if (drawing.kind === 'small') expect(figure / drawing.width, `span ${span} at ${page} px`).to.be.at.most(1.5);
      }
    }
    // The small drawing's rules come after the phone rules, which would otherwise show the phone drawing over it.
    const phoneRules = PAGE_CSS.indexOf('@media (max-width:640px)');
    for (const rule of [
      '@container (max-width:210px){.span-3 .chart-wide{display:none}.span-3 .chart-small{display:block}}',
      '@container (max-width:296px){.span-4 .chart-wide{display:none}.span-4 .chart-small{display:block}}',
      '@container (max-width:288px){.span-12 .chart-narrow{display:none}.span-12 .chart-small{display:block}}',
    ]) {
      expect(PAGE_CSS.indexOf(rule), rule).to.be.greaterThan(phoneRules);
    }
    expect(PAGE_CSS).to.contain('.chart-large,.chart-medium,.chart-narrow,.chart-small{display:none}');
    expect(PAGE_CSS).to.not.contain('.span-2 .chart-small');
  });

  it('grows a small drawing, up to its tallest, where every category label fits upright, rather than thinning them', () => {
    const svg = draw(panel('by-region'), SMALL);
    const words = texts(svg).flatMap((t) => t.split(/\s+/));
    for (const region of REGIONS) for (const word of region.split(' ')) expect(words, region).to.contain(word);
    const height = Number(/viewBox="0 0 200 ([\d.]+)"/.exec(svg)![1]);
    expect(height).to.be.greaterThan(SMALL.height).and.at.most(SMALL.tallest!);
    expect(svg, 'labels turned upright').to.match(/transform="matrix\(0,-1,1,0,[^"]*"[^>]*>North America</);
    // Ninety days cannot all be labelled in 200 px at any height: thinned, the drawing keeps its height.
    expect(draw(panel('daily'), SMALL)).to.contain('viewBox="0 0 200 260"');
    // Drawings without a tallest height keep thinning, as before.
    expect(draw(panel('by-region'), { width: 200, height: 260 })).to.contain('viewBox="0 0 200 260"');
  });

  it('lists a legend whose names are longer than a line in the small drawing, broken at spaces, the drawing taller for it', () => {
    const crowded = crowdedSpec();
    const lines = crowded.panels.find((p) => p.id === 'lines') as Panel & { type: ChartType };
    const svg = renderChart(lines, crowded.data!.wide!, [SMALL], 'c', 'p0')[0]!.svg;
    const words = new Set(texts(svg).flatMap((t) => t.split(/\s+/)));
    for (const { n } of crowded.data!.wide!) for (const word of String(n).split(' ')) expect(words, String(n)).to.include(word);
    expect(texts(svg)).to.not.include('Eastern Europe and Central Asia');
    const height = Number(/viewBox="0 0 200 ([\d.]+)"/.exec(svg)![1]);
    expect(height).to.be.greaterThan(SMALL.height);
    // The phone drawing has room for each name on its line, so its legend still flows in rows.
    expect(texts(renderChart(lines, crowded.data!.wide!, [PHONE], 'c', 'p0')[0]!.svg)).to.include('Eastern Europe and Central Asia');
  });

  it('stacks a pie\'s legend under the ring in the small drawing, every name whole, the drawing taller for it', () => {
    const crowded = crowdedSpec();
    const pie = crowded.panels[0] as Panel & { type: ChartType };
    const svg = renderChart(pie, crowded.data!.shares!, [SMALL], 'c', 'p0')[0]!.svg;
    const words = new Set(texts(svg).flatMap((t) => t.split(/\s+/)));
    for (const { n } of crowded.data!.shares!) for (const word of String(n).split(' ')) expect(words, String(n)).to.include(word);
    const [, , width, height] = /viewBox="([\d.]+) ([\d.]+) ([\d.]+) ([\d.]+)"/.exec(svg)!.slice(1).map(Number);
    expect(width).to.equal(200);
    expect(height).to.be.greaterThan(SMALL.height);
    expect([...fontSizes(svg)]).to.deep.equal([13]);
    // Beside the ring, in 200 px, the legend would have broken names inside words.
    expect(draw(panel('mix'), SMALL)).to.match(/>North America {2}30%</);
  });

  it('makes a pie drawing taller when its legend needs the room, keeping the ring its size', () => {
    const crowded = crowdedSpec();
    const pie = crowded.panels[0] as Panel & { type: ChartType };
    const svg = renderChart(pie, crowded.data!.shares!, [PHONE], 'c', 'p0')[0]!.svg;
    const [, , , height] = /viewBox="([\d.]+) ([\d.]+) ([\d.]+) ([\d.]+)"/.exec(svg)!.slice(1).map(Number);
    expect(height).to.be.greaterThan(PHONE.height);
    expect(draw(panel('mix'), PHONE)).to.contain(`viewBox="0 0 ${PHONE.width} ${PHONE.height}"`);
  });

  it('draws phone-sized charts with 13 px text and desktop ones with 12 px', () => {
    for (const id of ['by-region', 'trend', 'daily', 'seats', 'mix']) {
      expect([...fontSizes(draw(panel(id), PHONE))], id).to.deep.equal([13]);
      expect([...fontSizes(draw(panel(id), WIDE))], id).to.deep.equal([12]);
    }
  });
});
