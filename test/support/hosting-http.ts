import http from 'node:http';

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  text: string;
}

/** One request to 127.0.0.1:<port> naming the surface in the Host header; the body comes back as bytes. */
export function hostRequest(
  port: number,
  host: string,
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { hostname: '127.0.0.1', port, path, method: options.method ?? 'GET', headers: { ...options.headers, host }, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const body = Buffer.concat(chunks);
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body, text: body.toString('utf8') });
        });
      },
    );
    req.setTimeout(15_000, () => req.destroy(new Error(`request to ${host}${path} timed out`)));
    req.on('error', reject);
    req.end(options.body);
  });
}

/** `name=value` pairs of Set-Cookie headers, for sending back as a Cookie header. */
export function cookiePairs(headers: http.IncomingHttpHeaders): Record<string, string> {
  const pairs: Record<string, string> = {};
  for (const line of headers['set-cookie'] ?? []) {
    const [pair] = line.split(';');
    const eq = pair!.indexOf('=');
    pairs[pair!.slice(0, eq)] = pair!.slice(eq + 1);
  }
  return pairs;
}
