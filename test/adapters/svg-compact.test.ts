import { expect } from 'chai';
import { Resvg } from '@resvg/resvg-js';
import * as echarts from 'echarts/core';
// Registers the chart types and the SVG renderer the page draws with.
import '../../adapters/render/charts.js';
import { compactSvg, relativePath } from '../../adapters/render/svg-compact.js';

const SIZE = { width: 520, height: 300 };
const values = (count: number) => Array.from({ length: count }, (_, i) => Math.round(500 + 300 * Math.sin(i / 9) + (i % 7) * 11));

/** ECharts' own SVG for a series of `type` (bars with rounded tops, a large scatter cloud), as the page draws them. */
function drawn(type: 'line' | 'area' | 'bar' | 'scatter', count: number): string {
  const chart = echarts.init(null, null, { renderer: 'svg', ssr: true, ...SIZE });
  try {
    const ys = values(count);
    chart.setOption({
      animation: false,
      xAxis: { type: type === 'scatter' ? 'value' : 'category', data: type === 'scatter' ? undefined : ys.map((_, i) => `c${i}`) },
      yAxis: { type: 'value' },
      series: [type === 'scatter'
        ? { type, data: ys.map((y, i) => [i, y]), symbolSize: 6, itemStyle: { opacity: 0.75 }, large: true, largeThreshold: 500 }
        : { type: type === 'area' ? 'line' : type, data: ys, symbol: 'none', areaStyle: type === 'area' ? { opacity: 0.22 } : undefined, itemStyle: type === 'bar' ? { borderRadius: [3, 3, 0, 0] } : undefined }],
    });
    return chart.renderToSVGString();
  } finally {
    chart.dispose();
  }
}

/** The pixels resvg draws for an SVG. */
function pixels(svg: string): Uint8Array {
  return new Resvg(svg, { background: '#ffffff', font: { loadSystemFonts: false } }).render().pixels;
}

/** The share of pixels whose colour differs by more than a sixth of the range in any channel. */
function changed(a: Uint8Array, b: Uint8Array): number {
  let count = 0;
  for (let i = 0; i < a.length; i += 4) {
    if ([0, 1, 2, 3].some((c) => Math.abs(a[i + c]! - b[i + c]!) > 42)) count++;
  }
  return count / (a.length / 4);
}

describe('adapters: compact chart SVGs', () => {
  for (const [type, count] of [['line', 200], ['area', 200], ['bar', 120], ['scatter', 600]] as const) {
    it(`draws the same ${type} chart in fewer bytes`, () => {
      const raw = drawn(type, count);
      const compact = compactSvg(raw);
      expect(compact.length).to.be.lessThan(raw.length * (type === 'scatter' ? 0.5 : 0.95));
      const [before, after] = [pixels(raw), pixels(compact)];
      expect(after.length).to.equal(before.length);
      expect(changed(before, after)).to.be.lessThan(type === 'scatter' ? 0.01 : 0.001);
    });
  }

  it('writes lines and arcs relative to the point before, to the same tenth, and leaves other paths alone', () => {
    expect(relativePath('M10 20L10.5 19.9L12 30Z')).to.equal('M10 20l.5-.1 1.5 10.1Z');
    expect(relativePath('M1.5 2A0.6 0.6 0 0 1 2.1 2.6L2.1 10')).to.equal('M1.5 2a.6.6 0 0 1 .6.6l0 7.4');
    expect(relativePath('M0.1 0.2L0.3 0.1')).to.equal('M.1.2l.2-.1');
    for (const other of ['M1 2C3 4 5 6 7 8', 'M1.25 2L3 4', 'M1 2L3', 'M1 2l3 4']) expect(relativePath(other)).to.equal(other);
  });
});
