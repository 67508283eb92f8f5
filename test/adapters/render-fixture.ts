import { parseDashboardSpec, type DashboardSpec, type Row } from '../../domain/dashboard-spec.js';

/** A spec with every panel type, inline data plus one query, used by the render tests and the browser test. */
export function showcaseSpec(): DashboardSpec {
  const months = ['2025-01-01', '2025-02-01', '2025-03-01', '2025-04-01', '2025-05-01', '2025-06-01', '2025-07-01', '2025-08-01'];
  const revenue: Row[] = months.map((month, i) => ({
    month,
    revenue: 42_000 + i * 3_100 + (i % 3) * 1_700,
    cost: 30_000 + i * 1_400,
  }));
  const regions = ['North', 'South', 'East', 'West'];
  const byRegion: Row[] = months.slice(0, 6).flatMap((month, i) =>
    regions.map((region, r) => ({ month, region, orders: 120 + i * 9 + r * 25 })),
  );
  const points: Row[] = Array.from({ length: 80 }, (_, i) => ({
    visits: 100 + ((i * 37) % 900),
    signups: Math.round(5 + ((i * 37) % 900) * 0.04 + (i % 7) * 3),
  }));
  return parseDashboardSpec({
    title: 'Sales overview <Q1 & Q2>',
    description: 'Revenue, orders and sign-ups across regions.\nNumbers are in euros.',
    queries: { live: { sql: 'select 1 as n' } },
    data: {
      revenue,
      by_region: byRegion,
      channels: [
        { channel: 'Search', share: 44 },
        { channel: 'Direct', share: 26 },
        { channel: 'Social', share: 18 },
        { channel: 'Email', share: 12 },
      ],
      points,
      totals: [{ revenue: 1_234_567, orders: 8_432, conversion: '3.75', status: 'healthy' }],
      customers: [
        { name: 'Acme <script>alert(1)</script>', country: 'FR', orders: 12, spend: 10_450.5 },
        { name: 'Globex', country: 'DE', orders: 7, spend: 6_210 },
        { name: 'Initech', country: 'US', orders: 3, spend: null },
      ],
    },
    panels: [
      { id: 'total-revenue', type: 'stat', title: 'Revenue', query: 'totals', value: 'revenue' },
      { id: 'total-orders', type: 'stat', title: 'Orders', query: 'totals', value: 'orders' },
      { id: 'conversion', type: 'stat', title: 'Conversion %', query: 'totals', value: 'conversion' },
      { id: 'status', type: 'stat', title: 'Status', query: 'totals', value: 'status' },
      { id: 'revenue-trend', type: 'line', title: 'Revenue vs cost', query: 'revenue', x: 'month', y: ['revenue', 'cost'], width: 8 },
      { id: 'channels', type: 'pie', title: 'Traffic by channel', query: 'channels', x: 'channel', y: 'share', width: 4 },
      { id: 'orders-by-region', type: 'bar', title: 'Orders by region', query: 'by_region', x: 'month', y: 'orders', series: 'region', width: 6 },
      { id: 'revenue-area', type: 'area', title: 'Revenue', query: 'revenue', x: 'month', y: 'revenue', width: 6 },
      { id: 'visits-signups', type: 'scatter', title: 'Visits and sign-ups', query: 'points', x: 'visits', y: 'signups', width: 6 },
      {
        id: 'notes',
        type: 'text',
        title: 'Notes',
        width: 6,
        text: '## How to read this\n\nRevenue is **net of refunds**; orders count *paid* orders only.\n\n- Source: `billing.invoices`\n- Owner: [Finance](https://example.com/finance)\n- <img src=x onerror=alert(1)> stays text',
      },
      { id: 'customers', type: 'table', title: 'Top customers', query: 'customers' },
      { id: 'live', type: 'table', title: 'Live query', query: 'live', width: 12 },
    ],
  });
}

/** Six months of MRR and churn, oldest first, for the tiles' compare and sparkline. */
const MRR = [14_100, 15_020, 15_800, 16_100, 17_000, 18_250.5];
const CHURN = [0.031, 0.028, 0.03, 0.022, 0.024, 0.021];

export const REGIONS = ['North America', 'Europe', 'Latin America', 'Asia Pacific', 'Middle East & Africa'];

/**
 * A dashboard as a new user writes one, with the hard cases for layout: long category and legend names,
 * two scales on one chart, tiles beside a pie, a long daily series, timestamps, and long words in cells.
 */
export function shareableSpec(): DashboardSpec {
  const months = Array.from({ length: 12 }, (_, i) => `2025-${String(i + 1).padStart(2, '0')}-01`);
  const days = Array.from({ length: 90 }, (_, i) => new Date(Date.UTC(2025, 0, 1 + i)).toISOString().slice(0, 10));
  return parseDashboardSpec({
    title: 'Subscriptions',
    timezone: 'Europe/Paris',
    data: {
      // Latest month first, as a tile reads the first row; each row carries the month before for `compare`.
      kpis: MRR.map((mrr, i) => ({ month: months[i]!, mrr, prev_mrr: MRR[i - 1] ?? null, churn: CHURN[i]!, prev_churn: CHURN[i - 1] ?? null, customers: 1_204 - (5 - i) * 40, plan: 'Growth' })).reverse(),
      regions: REGIONS.map((region, i) => ({ region, revenue: 184_000 - i * 31_500 })),
      monthly: months.map((month, i) => ({ month, revenue: 120_000 + i * 8_250, conversion: 2.1 + (i % 4) * 0.35 })),
      signups: days.map((day, i) => ({ day, signups: 40 + ((i * 17) % 23) })),
      fit: Array.from({ length: 30 }, (_, i) => ({ seats: 5 + i * 3, spend: 400 + i * 95 + (i % 5) * 60, plan: i % 2 ? 'Team' : 'Enterprise' })),
      accounts: [
        { account: 'Internationalisation Consultants GmbH', region: 'Middle East & Africa', seats: 1_250, arr: '152000.00', updated_at: '2025-03-30T00:30:00.000Z' },
        { account: 'Acme', region: 'Europe', seats: 12, arr: '8400.50', updated_at: '2025-07-14T09:05:00.000Z' },
        { account: 'Globex', region: 'Latin America', seats: 48, arr: null, updated_at: '2025-11-02T23:59:00.000Z' },
      ],
    },
    panels: [
      { id: 'mrr', type: 'stat', title: 'MRR', query: 'kpis', value: 'mrr', compare: 'prev_mrr', sparkline: 'mrr' },
      { id: 'churn', type: 'stat', title: 'Churn', query: 'kpis', value: 'churn', format: 'percent', compare: { column: 'prev_churn', good: 'down' }, sparkline: 'churn' },
      { id: 'mix', type: 'pie', title: 'Revenue by region', query: 'regions', x: 'region', y: 'revenue', width: 6 },
      { id: 'by-region', type: 'bar', title: 'Revenue by region', query: 'regions', x: 'region', y: 'revenue', x_title: 'Region', y_title: 'Revenue (EUR)', width: 6 },
      { id: 'trend', type: 'line', title: 'Revenue and conversion', query: 'monthly', x: 'month', y: ['revenue', 'conversion'], y2: ['conversion'], x_title: 'Month', y_title: 'Revenue (EUR)', width: 6 },
      { id: 'daily', type: 'area', title: 'Daily sign-ups', query: 'signups', x: 'day', y: 'signups', x_title: 'Day', width: 12 },
      { id: 'seats', type: 'scatter', title: 'Spend by seats', query: 'fit', x: 'seats', y: 'spend', series: 'plan', x_title: 'Seats', y_title: 'Spend (EUR)', width: 6 },
      { id: 'notes', type: 'text', title: 'Notes', text: 'Revenue is **net of refunds**.', width: 6 },
      {
        id: 'accounts', type: 'table', title: 'Largest accounts', query: 'accounts',
        columns: [{ id: 'account', label: 'Account' }, { id: 'region', label: 'Region' }, { id: 'seats', label: 'Seats' },
          { id: 'arr', label: 'ARR', format: { type: 'currency', currency: 'EUR', decimals: 0 } }, { id: 'updated_at', label: 'Last change' }],
      },
    ],
  });
}

/** Crowded charts: twelve long slice names, twelve long series names, twelve long categories in groups, at widths from 3 to 12 columns. */
export function crowdedSpec(): DashboardSpec {
  const names = ['Middle East & Africa', 'North America and Caribbean', 'Latin America', 'Asia Pacific excluding Japan', 'Japan', 'Western Europe',
    'Eastern Europe and Central Asia', 'Oceania', 'Nordics', 'United Kingdom and Ireland', 'Southern Africa', 'Antarctica research'];
  return parseDashboardSpec({
    title: 'Crowded',
    data: { shares: names.map((n, i) => ({ n, v: 100 - i * 5 })), wide: names.map((n, i) => ({ n, a: i, b: i * 2, c: 3 })) },
    panels: [
      { id: 'pie', type: 'pie', query: 'shares', x: 'n', y: 'v', width: 6 },
      { id: 'pie4', type: 'pie', query: 'shares', x: 'n', y: 'v', width: 4 },
      { id: 'bars', type: 'bar', query: 'wide', x: 'n', y: ['a', 'b', 'c'], width: 6 },
      { id: 'lines', type: 'line', query: 'wide', x: 'n', y: 'a', series: 'n', width: 12 },
      // Narrow charts, for the small drawing: three, four and five columns.
      { id: 'pie3', type: 'pie', query: 'shares', x: 'n', y: 'v', width: 3 },
      { id: 'bars4', type: 'bar', query: 'wide', x: 'n', y: ['a', 'b', 'c'], width: 4 },
      { id: 'pie5', type: 'pie', query: 'shares', x: 'n', y: 'v', width: 5 },
    ],
  });
}
