import { expect } from 'chai';
import { BodyBuffers, POOLED_FROM, sizeClass } from '../../shells/http/body-buffers.js';

describe('BodyBuffers', () => {
  it('lends exactly the size asked for, out of a power-of-two buffer', () => {
    const lease = new BodyBuffers().lend(100_000);
    expect(lease.bytes.length).to.equal(100_000);
    expect(lease.bytes.buffer.byteLength).to.equal(128 * 1024);
    expect([sizeClass(1), sizeClass(POOLED_FROM), sizeClass(POOLED_FROM + 1), sizeClass(5 * 2 ** 20 + 100)]).to.deep.equal([
      POOLED_FROM,
      POOLED_FROM,
      2 * POOLED_FROM,
      8 * 2 ** 20,
    ]);
  });

  it('lends a released buffer again, to a body of its size class only', () => {
    const buffers = new BodyBuffers();
    const first = buffers.lend(5_000_000);
    const memory = first.bytes.buffer;
    first.release();
    expect(buffers.idleBytes).to.equal(8 * 2 ** 20);
    const small = buffers.lend(100_000);
    expect(small.bytes.buffer).to.not.equal(memory);
    const again = buffers.lend(4_500_000);
    expect(again.bytes.buffer).to.equal(memory);
    expect(buffers.idleBytes).to.equal(0);
  });

  it('never lends one buffer to two requests at once, however often a lease is released', () => {
    const buffers = new BodyBuffers();
    const a = buffers.lend(200_000);
    const b = buffers.lend(200_000);
    expect(a.bytes.buffer).to.not.equal(b.bytes.buffer);
    a.release();
    a.release();
    const c = buffers.lend(200_000);
    const d = buffers.lend(200_000);
    expect(c.bytes.buffer).to.equal(a.bytes.buffer);
    expect(d.bytes.buffer).to.not.equal(c.bytes.buffer);
    expect(buffers.idleBytes).to.equal(0);
  });

  it('keeps no more than its byte budget', () => {
    const buffers = new BodyBuffers({ maxBytes: 2 * POOLED_FROM });
    const leases = [1, 2, 3].map(() => buffers.lend(POOLED_FROM));
    for (const lease of leases) lease.release();
    expect(buffers.idleBytes).to.equal(2 * POOLED_FROM);
  });

  it('gives everything kept back after a quiet while', async () => {
    const buffers = new BodyBuffers({ idleMs: 20 });
    buffers.lend(POOLED_FROM).release();
    expect(buffers.idleBytes).to.equal(POOLED_FROM);
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(buffers.idleBytes).to.equal(0);
    const next = buffers.lend(POOLED_FROM);
    next.release();
    expect(buffers.idleBytes).to.equal(POOLED_FROM);
  });
});
