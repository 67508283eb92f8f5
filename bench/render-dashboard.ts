/** The render benchmark's dashboard: six panels over generated rows, shared by the benches that measure it. */
import type { Row } from '../domain/dashboard-spec.js';

export const ROWS = 10_000;

export function generateRows(count: number): Row[] {
  const regions = ['North', 'South', 'East', 'West'];
  const start = Date.UTC(2024, 0, 1);
  return Array.from({ length: count }, (_, i) => ({
    at: new Date(start + i * 3_600_000).toISOString(),
    day: new Date(start + Math.floor(i / 24) * 86_400_000).toISOString().slice(0, 10),
    region: regions[i % regions.length]!,
    revenue: Math.round(1000 + 400 * Math.sin(i / 48) + (i % 97) * 3),
    cost: Math.round(700 + 150 * Math.cos(i / 60) + (i % 53) * 2),
    visits: 50 + ((i * 7919) % 1000),
    signups: 2 + ((i * 104_729) % 60),
  }));
}

/** The six panels, each reading the data set `events`. */
export const BENCH_PANELS = [
  { id: 'trend', type: 'line', title: 'Revenue and cost', query: 'events', x: 'at', y: ['revenue', 'cost'], width: 12 },
  { id: 'by-region', type: 'bar', title: 'Revenue by region and day', query: 'events', x: 'day', y: 'revenue', series: 'region', width: 6 },
  { id: 'area', type: 'area', title: 'Cost', query: 'events', x: 'at', y: 'cost', width: 6 },
  { id: 'share', type: 'pie', title: 'Share by region', query: 'events', x: 'region', y: 'revenue', width: 4 },
  { id: 'cloud', type: 'scatter', title: 'Visits vs sign-ups', query: 'events', x: 'visits', y: 'signups', width: 8 },
  { id: 'rows', type: 'table', title: 'Rows', query: 'events', width: 12 },
];
