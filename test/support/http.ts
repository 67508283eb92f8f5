import http from 'node:http';

export interface HttpResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  /** The body parsed as JSON; throws when it is not JSON. */
  json<T = any>(): T;
}

export interface HttpRequest {
  /** Full URL to connect to, e.g. `http://127.0.0.1:1234/mcp`. */
  url: string;
  method?: string;
  /**
   * Host header to send, e.g. `app.localhost:8787`. Node resolves no `*.localhost` name and `fetch`
   * drops a Host header, so tests connect to 127.0.0.1 and name the surface here (shells/koa/host-router.ts).
   */
  host?: string;
  headers?: Record<string, string>;
  /** A string or Buffer is sent as is; any other value is sent as JSON with `content-type: application/json`. */
  body?: unknown;
  timeoutMs?: number;
}

/** One HTTP request with node:http, answering status, headers and the whole body as text. */
export function request(options: HttpRequest): Promise<HttpResponse> {
  const url = new URL(options.url);
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  if (options.host) headers.host = options.host;
  let payload: Buffer | undefined;
  if (options.body !== undefined) {
    if (typeof options.body === 'string' || Buffer.isBuffer(options.body)) {
      payload = Buffer.isBuffer(options.body) ? options.body : Buffer.from(options.body, 'utf8');
    } else {
      payload = Buffer.from(JSON.stringify(options.body), 'utf8');
      if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
    }
    headers['content-length'] = String(payload.length);
  }
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        hostname: url.hostname,
        port: url.port,
        path: `${url.pathname}${url.search}`,
        method: options.method ?? (payload ? 'POST' : 'GET'),
        headers,
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: () => JSON.parse(text) });
        });
      },
    );
    req.setTimeout(options.timeoutMs ?? 15000, () => req.destroy(new Error(`request to ${options.url} timed out`)));
    req.on('error', reject);
    req.end(payload);
  });
}

/** JSON-RPC over POST /mcp with a bearer token: the shape nearly every MCP test sends. */
export function postMcp(baseUrl: string, body: unknown, token?: string, extraHeaders: Record<string, string> = {}) {
  const headers: Record<string, string> = { accept: 'application/json, text/event-stream', ...extraHeaders };
  if (token) headers.authorization = `Bearer ${token}`;
  return request({ url: `${baseUrl.replace(/\/+$/, '')}/mcp`, method: 'POST', headers, body });
}
