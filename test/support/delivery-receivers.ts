import http from 'node:http';
import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { SMTPServer } from 'smtp-server';
import { simpleParser, type ParsedMail } from 'mailparser';

export interface ReceivedPost {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface WebhookReceiver {
  url: string;
  port: number;
  received: ReceivedPost[];
  /** The status the receiver answers with (200 unless a test changes it). */
  status: number;
  close(): Promise<void>;
}

/** A local HTTP server that records every POST and answers `status`. */
export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: ReceivedPost[] = [];
  const receiver = { received, status: 200 } as WebhookReceiver;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(receiver.status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return Object.assign(receiver, {
    url: `http://127.0.0.1:${port}`,
    port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}

export interface MailReceiver {
  url: string;
  port: number;
  mails: ParsedMail[];
  close(): Promise<void>;
}

/** A real SMTP server (smtp-server) on loopback, without TLS or auth; what arrives is parsed with mailparser. */
export async function startSmtpReceiver(): Promise<MailReceiver> {
  const mails: ParsedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, _session, callback) {
      simpleParser(stream, { keepCidLinks: true }).then(
        (mail) => {
          mails.push(mail);
          callback();
        },
        (err: Error) => callback(err),
      );
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as { port: number }).port;
  return { url: `smtp://127.0.0.1:${port}`, port, mails, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

export type VerifySignature = (secret: string, timestamp: string, rawBody: string, signature: string, nowSeconds?: number) => boolean;

/** The verification snippet exactly as README.md documents it, loaded as a module. */
export async function readmeSignatureSnippet(): Promise<VerifySignature> {
  const readme = readFileSync(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Webhooks'));
  const code = /```js\n([\s\S]*?)```/.exec(section)?.[1];
  if (!code) throw new Error('README.md has no js snippet under "## Webhooks"');
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'dashpub-snippet-')), 'verify.mjs');
  writeFileSync(file, code);
  const module = (await import(pathToFileURL(file).href)) as { verifyDashpubSignature: VerifySignature };
  return module.verifyDashpubSignature;
}

/** Waits (polling, bounded) until `check` is true; for deliveries made by background jobs. */
export async function eventually(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
