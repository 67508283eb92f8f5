import { expect } from 'chai';
import { FreshReads } from '../../shells/koa/mcp/list-answer-cache.js';

/** A fetch whose calls are counted and answered by hand, in order. */
function handFetch() {
  const pending: Array<(value: number) => void> = [];
  let started = 0;
  return {
    fetch: () => {
      started += 1;
      return new Promise<number>((resolve) => pending.push(resolve));
    },
    get started() {
      return started;
    },
    /** Answers the oldest unanswered fetch with the number of fetches started before it ended. */
    answer: () => pending.shift()!(started),
  };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

/**
 * The list cache's version reads (docs/decisions/0046-list-answer-cache.md): shared among
 * concurrent calls, but never a read that started before a caller asked.
 */
describe('shells: FreshReads', () => {
  it('hands a caller that arrives during a read the next read, shared with everyone else who waited', async () => {
    const reads = new FreshReads<number>();
    const hand = handFetch();
    const first = reads.read('owner', hand.fetch);
    expect(hand.started).to.equal(1);
    const second = reads.read('owner', hand.fetch);
    const third = reads.read('owner', hand.fetch);
    expect(hand.started).to.equal(1);
    hand.answer();
    expect(await first).to.equal(1);
    await tick();
    // The waiting callers' read starts only now, after the one under way when they asked.
    expect(hand.started).to.equal(2);
    const fourth = reads.read('owner', hand.fetch);
    hand.answer();
    expect([await second, await third]).to.deep.equal([2, 2]);
    await tick();
    expect(hand.started).to.equal(3);
    hand.answer();
    expect(await fourth).to.equal(3);
    await tick();
    expect(reads.size).to.equal(0);
  });

  it('keeps keys apart and passes a failure on to that read\'s callers only', async () => {
    const reads = new FreshReads<number>();
    let calls = 0;
    const failing = reads.read('a', async () => {
      calls++;
      throw new Error('database away');
    });
    const other = reads.read('b', async () => ++calls * 10);
    const after = reads.read('a', async () => ++calls);
    let refused: unknown;
    await failing.catch((err: unknown) => (refused = err));
    expect((refused as Error).message).to.equal('database away');
    expect(await other).to.equal(20);
    expect(await after).to.equal(3);
  });
});
