/** One labelled series: a count, and for the latency histogram the sum and the count per bucket. */
interface Series {
  /** The series' labels as Prometheus text writes them, made once. */
  readonly labels: string;
  count: number;
  sum: number;
  /** Observations per bucket, not cumulative; the last one is past every bound (`+Inf` only). */
  readonly buckets: number[];
}

interface Family {
  name: string;
  help: string;
}

const HTTP_REQUESTS: Family = { name: 'dashpub_http_requests_total', help: 'HTTP requests answered, by surface and status' };
const HTTP_SECONDS: Family = { name: 'dashpub_http_request_duration_seconds', help: 'HTTP request latency, by surface and status' };
const SERVED: Family = { name: 'dashpub_dashboards_served_total', help: 'Responses of the dashboards host, by status' };

/** A label value as Prometheus text (and prom-client) escapes it. */
const labelValue = (value: string) => value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');

/**
 * The metrics every HTTP request updates, counted in plain numbers and written as Prometheus text only
 * when scraped (docs/decisions/0160-request-metrics-counted-in-memory.md): prom-client hashes and checks
 * the labels on every `inc` and `observe`, which was most of what observing a request cost on the hosting
 * path. A request costs two map lookups, a bucket search and a few additions here. The text is what
 * prom-client writes for the same counters and histogram (test/adapters/request-tally.test.ts compares them).
 */
export class RequestTally {
  private readonly http = new Map<string, Map<number, Series>>();
  /** The HTTP series in the order they first appeared, as prom-client lists them. */
  private readonly httpSeries: Series[] = [];
  private readonly served = new Map<number, Series>();

  constructor(private readonly bounds: readonly number[]) {}

  httpRequest(surface: string, status: number, seconds: number): void {
    let byStatus = this.http.get(surface);
    if (byStatus === undefined) this.http.set(surface, (byStatus = new Map()));
    let series = byStatus.get(status);
    if (series === undefined) {
      series = this.series(`surface="${labelValue(surface)}",status="${status}"`);
      byStatus.set(status, series);
      this.httpSeries.push(series);
    }
    series.count += 1;
    // prom-client refuses a duration that is not a finite number; such a request is counted without one.
    if (!Number.isFinite(seconds)) return;
    series.sum += seconds;
    const bounds = this.bounds;
    let bucket = 0;
    while (bucket < bounds.length && seconds > bounds[bucket]!) bucket++;
    series.buckets[bucket]! += 1;
  }

  dashboardServed(status: number): void {
    let series = this.served.get(status);
    if (series === undefined) this.served.set(status, (series = this.series(`status="${status}"`)));
    series.count += 1;
  }

  /** The three metric families in Prometheus text (version 0.0.4), separated by blank lines as prom-client separates its own. */
  exposition(): string {
    const counter = (family: Family, series: Iterable<Series>) => {
      const lines = header(family, 'counter');
      for (const s of series) lines.push(`${family.name}{${s.labels}} ${s.count}`);
      return lines.join('\n');
    };
    return [counter(HTTP_REQUESTS, this.httpSeries), this.histogram(), counter(SERVED, this.served.values())].join('\n\n');
  }

  private histogram(): string {
    const { name } = HTTP_SECONDS;
    const lines = header(HTTP_SECONDS, 'histogram');
    for (const s of this.httpSeries) {
      let cumulative = 0;
      this.bounds.forEach((bound, i) => {
        cumulative += s.buckets[i]!;
        lines.push(`${name}_bucket{le="${bound}",${s.labels}} ${cumulative}`);
      });
      cumulative += s.buckets[this.bounds.length]!;
      lines.push(`${name}_bucket{le="+Inf",${s.labels}} ${cumulative}`, `${name}_sum{${s.labels}} ${s.sum}`, `${name}_count{${s.labels}} ${cumulative}`);
    }
    return lines.join('\n');
  }

  private series(labels: string): Series {
    return { labels, count: 0, sum: 0, buckets: new Array<number>(this.bounds.length + 1).fill(0) };
  }
}

const header = (family: Family, type: string) => [`# HELP ${family.name} ${family.help}`, `# TYPE ${family.name} ${type}`];
