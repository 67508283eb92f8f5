import { html, type Html } from './html.js';

const WIDTH = 600;
const HEIGHT = 120;
const TOP = 4;
const BOTTOM = 2;
const LEFT = 4;

/**
 * Daily views as a small inline SVG bar chart, drawn on the server (the app's pages run no script).
 * Colours come from the stylesheet (`figure.chart` rules), so the chart follows the colour scheme.
 */
export function viewsChart(days: Array<{ day: string; views: number }>): Html {
  const total = days.reduce((sum, d) => sum + d.views, 0);
  const peak = days.reduce((best, d) => (d.views > best.views ? d : best), days[0] ?? { day: '', views: 0 });
  const max = Math.max(1, peak.views);
  const slot = (WIDTH - LEFT * 2) / Math.max(1, days.length);
  const plot = HEIGHT - TOP - BOTTOM;
  const bars = days.map((d, i) => {
    const h = d.views === 0 ? 0 : Math.max(2, (d.views / max) * plot);
    const x = LEFT + i * slot + slot * 0.15;
    return html`<rect class="bar" x="${x.toFixed(1)}" y="${(TOP + plot - h).toFixed(1)}" width="${(slot * 0.7).toFixed(1)}" height="${h.toFixed(1)}"><title>${d.day}: ${d.views} views</title></rect>`;
  });
  const first = days[0]?.day ?? '';
  const last = days[days.length - 1]?.day ?? '';
  const summary = total === 0 ? `No views in the last ${days.length} days.` : `${total} views in the last ${days.length} days; the busiest day was ${peak.day} with ${peak.views}.`;
  return html`<figure class="chart"><svg viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-labelledby="views-title" xmlns="http://www.w3.org/2000/svg">
<title id="views-title">${summary}</title>
<line x1="${LEFT}" y1="${TOP + plot + 0.5}" x2="${WIDTH - LEFT}" y2="${TOP + plot + 0.5}"></line>
${bars}
</svg><div class="axis" aria-hidden="true"><span>${first}</span>${total === 0 ? null : html`<span>peak ${peak.views}</span>`}<span>${last}</span></div>
<figcaption>${summary} Days are UTC; nothing about viewers is kept.</figcaption></figure>`;
}
