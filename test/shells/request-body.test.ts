import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { expect } from 'chai';
import { BodyTooLarge, lendBodyBuffer, readBody, readBodyBytes } from '../../shells/http/request-body.js';
import { BodyBuffers, POOLED_FROM } from '../../shells/http/body-buffers.js';

/** A request whose body arrives in `chunks`, with Content-Length when `declared`. */
function request(chunks: Buffer[], declared: boolean): IncomingMessage {
  const stream = Readable.from(chunks) as unknown as IncomingMessage;
  const length = chunks.reduce((sum, c) => sum + c.length, 0);
  stream.headers = declared ? { 'content-length': String(length) } : {};
  return stream;
}

/** `bytes` cut into pieces of `size`, so multi-byte characters fall across chunk boundaries. */
const cut = (bytes: Buffer, size: number) => Array.from({ length: Math.ceil(bytes.length / size) }, (_, i) => bytes.subarray(i * size, (i + 1) * size));

describe('readBody', () => {
  // ASCII bodies take the latin1 path, others UTF-8: both must give the text UTF-8 decoding gives.
  const ascii = `{"body":"${'<tr><td>1</td></tr>\\n'.repeat(70_000)}"}`; // about 1.4 MB, over Node's external-string size
  const accented = `{"body":"${'<td>région — 東京 🎉</td>'.repeat(40_000)}"}`;
  const cases: Array<[string, string]> = [
    ['small ASCII', '{"jsonrpc":"2.0","id":1}'],
    ['large ASCII', ascii],
    ['large with multi-byte characters', accented],
    ['latin1 range characters', '{"x":"café ÿ ©"}'],
    ['empty', ''],
  ];
  for (const [name, text] of cases) {
    for (const declared of [true, false]) {
      it(`reads a ${name} body as its UTF-8 text (${declared ? 'with' : 'without'} Content-Length)`, async () => {
        const bytes = Buffer.from(text, 'utf8');
        const read = await readBody(request(cut(bytes, 65_531), declared), 32 * 1024 * 1024);
        expect(read.length).to.equal(text.length);
        expect(read === text).to.equal(true);
      });
    }
  }

  it('refuses a body over the limit, declared or not', async () => {
    const bytes = Buffer.from('x'.repeat(1000));
    for (const declared of [true, false]) {
      const error = await readBody(request(cut(bytes, 100), declared), 999).then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).to.be.instanceOf(BodyTooLarge);
    }
  });

  it('stops reading a body the moment it passes the limit', async () => {
    let pulled = 0;
    const stream = new Readable({
      read() {
        pulled++;
        this.push(Buffer.alloc(100, 'x'));
      },
    }) as unknown as IncomingMessage;
    stream.headers = {};
    const error = await readBody(stream, 950).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).to.be.instanceOf(BodyTooLarge);
    expect((stream as unknown as Readable).destroyed).to.equal(true);
    expect(pulled).to.be.below(20);
  });

  it('fails when the request closes before its body ends', async () => {
    const stream = new Readable({ read() {} }) as unknown as IncomingMessage;
    stream.headers = { 'content-length': '1000' };
    (stream as unknown as Readable).push(Buffer.alloc(10, 'x'));
    const pending = readBody(stream, 10_000).then(
      () => null,
      (e: unknown) => e,
    );
    (stream as unknown as Readable).destroy();
    const error = await pending;
    expect(error).to.be.instanceOf(Error);
    expect(error).not.to.be.instanceOf(BodyTooLarge);
  });
});

describe('readBodyBytes into a lent buffer', () => {
  const large = (fill: string) => Buffer.alloc(POOLED_FROM + 1000, fill);
  const LIMIT = 32 * 1024 * 1024;

  it('reads a large declared body into a lent buffer, and the next one into the same buffer once released', async () => {
    const buffers = new BodyBuffers();
    const firstRequest = request(cut(large('a'), 65_531), true);
    const first = lendBodyBuffer(firstRequest, LIMIT, buffers)!;
    const read = await readBodyBytes(firstRequest, LIMIT, first);
    expect(read.equals(large('a'))).to.equal(true);
    expect(read.buffer).to.equal(first.bytes.buffer);
    first.release();
    const secondRequest = request(cut(large('b'), 10_000), true);
    const second = lendBodyBuffer(secondRequest, LIMIT, buffers)!;
    expect(second.bytes.buffer).to.equal(first.bytes.buffer);
    expect((await readBodyBytes(secondRequest, LIMIT, second)).equals(large('b'))).to.equal(true);
  });

  it('lends nothing for a small body, one without Content-Length, or one over the limit', () => {
    const buffers = new BodyBuffers();
    expect(lendBodyBuffer(request([Buffer.from('{"jsonrpc":"2.0"}')], true), LIMIT, buffers)).to.equal(null);
    expect(lendBodyBuffer(request([large('c')], false), LIMIT, buffers)).to.equal(null);
    expect(lendBodyBuffer(request([large('c')], true), POOLED_FROM, buffers)).to.equal(null);
  });

  it('gives the buffer back when the read fails', async () => {
    const buffers = new BodyBuffers();
    const stream = new Readable({ read() {} }) as unknown as IncomingMessage;
    stream.headers = { 'content-length': String(POOLED_FROM * 2) };
    (stream as unknown as Readable).push(Buffer.alloc(10, 'x'));
    const lease = lendBodyBuffer(stream, LIMIT, buffers);
    const pending = readBodyBytes(stream, LIMIT, lease).then(
      () => null,
      (e: unknown) => e,
    );
    (stream as unknown as Readable).destroy();
    expect(await pending).to.be.instanceOf(Error);
    expect(buffers.idleBytes).to.equal(POOLED_FROM * 2);
  });
});
