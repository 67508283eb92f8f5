import { expect } from 'chai';
import { Counter, Histogram, Registry } from 'prom-client';
import { PromTelemetry } from '../../adapters/metrics/prom-telemetry.js';

const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const FAMILIES = ['dashpub_http_requests_total', 'dashpub_http_request_duration_seconds', 'dashpub_dashboards_served_total'];

/** The per-request metrics as prom-client itself kept them before they were counted in memory: the reference. */
function reference() {
  const registry = new Registry();
  const registers = [registry];
  const http = new Counter({ name: FAMILIES[0]!, help: 'HTTP requests answered, by surface and status', labelNames: ['surface', 'status'], registers });
  const seconds = new Histogram({ name: FAMILIES[1]!, help: 'HTTP request latency, by surface and status', labelNames: ['surface', 'status'], buckets: BUCKETS, registers });
  const served = new Counter({ name: FAMILIES[2]!, help: 'Responses of the dashboards host, by status', labelNames: ['status'], registers });
  return {
    httpRequest(surface: string, status: number, value: number) {
      const labels = { surface, status: String(status) };
      http.labels(labels).inc();
      seconds.labels(labels).observe(value);
    },
    dashboardServed: (status: number) => served.labels({ status: String(status) }).inc(),
    text: async () => (await Promise.all(FAMILIES.map((name) => registry.getSingleMetricAsString(name)))).join('\n\n'),
  };
}

/** The three families' blocks of a scrape, in the order the reference writes them. */
async function families(telemetry: PromTelemetry): Promise<string> {
  const { text } = await telemetry.exposition();
  const blocks = text.trimEnd().split('\n\n');
  return FAMILIES.map((name) => blocks.find((block) => block.startsWith(`# HELP ${name} `)) ?? `(no ${name})`).join('\n\n');
}

/**
 * The HTTP metrics are counted in plain numbers and written on scrape (request-tally.ts); a scrape must read
 * exactly as prom-client's own counters and histogram read for the same requests: names, help, types, label
 * order and escaping, cumulative buckets (a value on a bound counts in that bound's bucket), sums and counts.
 */
describe('adapters: the per-request HTTP metrics counted in memory', () => {
  it('write what prom-client writes for the same requests, before any and across scrapes', async () => {
    const telemetry = new PromTelemetry({ processMetrics: false });
    const expected = reference();
    expect(await families(telemetry)).to.equal(await expected.text());

    const requests: Array<[string, number, number]> = [
      ['dashboards', 200, 0.0004],
      ['api', 404, 0.3],
      ['dashboards', 200, 0.005],
      ['dashboards', 304, 10],
      ['app', 303, 20],
      ['dashboards', 200, 0.0051],
      ['dashboards', 499, 0],
      ['api', 200, 1e-7],
    ];
    for (const [surface, status, seconds] of requests) {
      for (const target of [telemetry, expected]) target.httpRequest(surface, status, seconds);
      if (surface === 'dashboards') for (const target of [telemetry, expected]) target.dashboardServed(status);
    }
    const first = await families(telemetry);
    expect(first).to.equal(await expected.text());
    expect(first).to.include('dashpub_http_request_duration_seconds_bucket{le="0.005",surface="dashboards",status="200"} 2\n');
    expect(first).to.include('dashpub_http_request_duration_seconds_count{surface="app",status="303"} 1\n');

    // Counts carry on from one scrape to the next (counters, not gauges), and a new series joins at the end.
    for (let i = 0; i < 1000; i++) for (const target of [telemetry, expected]) target.httpRequest('dashboards', 200, (i % 40) / 1000);
    for (const target of [telemetry, expected]) target.httpRequest('api', 500, 2.5);
    expect(await families(telemetry)).to.equal(await expected.text());
    expect(await families(telemetry)).to.include('dashpub_http_requests_total{surface="dashboards",status="200"} 1003\n');
  });

  it('escapes a label value as prom-client does', async () => {
    const telemetry = new PromTelemetry({ processMetrics: false });
    const expected = reference();
    for (const target of [telemetry, expected]) target.httpRequest('we"ird\\sur\nface', 200, 0.01);
    expect(await families(telemetry)).to.equal(await expected.text());
  });

  it('counts a request whose duration is not a number without adding it to the latency histogram', async () => {
    const telemetry = new PromTelemetry({ processMetrics: false });
    telemetry.httpRequest('api', 200, Number.NaN);
    telemetry.httpRequest('api', 200, 0.2);
    const text = await families(telemetry);
    expect(text).to.include('dashpub_http_requests_total{surface="api",status="200"} 2\n');
    expect(text).to.include('dashpub_http_request_duration_seconds_count{surface="api",status="200"} 1');
    expect(text).to.include('dashpub_http_request_duration_seconds_sum{surface="api",status="200"} 0.2\n');
  });
});
