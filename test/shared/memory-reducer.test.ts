import assert from 'node:assert/strict';
import { reduceMemoryAfterBursts } from '../../src/shared/memory-reducer.ts';

describe('memory reducer', () => {
  it('gives back the heap a burst grew once the burst is over', async () => {
    // Measured against the heap before the burst, compacted first: in a long test run the heap holds
    // other live data, and garbage of earlier tests.
    const settle = reduceMemoryAfterBursts({ intervalMs: 10, slackBytes: 1 });
    await new Promise((resolve) => setTimeout(resolve, 60));
    settle();
    const before = process.memoryUsage().heapTotal;
    // A burst: many objects that live a while, as a flood of handshakes leaves behind. They are held in
    // groups of eight rounds, so that they reach the old generation and grow it well past the young
    // one, which V8 keeps at the size a burst grew it to (16 MB or more) whatever is collected.
    let made = 0;
    let held: object[] = [];
    for (let round = 0; round < 24; round += 1) {
      const objects = Array.from({ length: 100_000 }, (_, i) => ({ i, text: `burst ${round} ${i}` }));
      made += objects.length;
      held = round % 8 === 7 ? [] : [...held, objects];
    }
    held.length = 0;
    const grown = process.memoryUsage();
    const slack = grown.heapTotal - grown.heapUsed;
    const stop = reduceMemoryAfterBursts({ intervalMs: 20, slackBytes: 1024 * 1024 });
    await new Promise((resolve) => setTimeout(resolve, 200));
    stop();
    const after = process.memoryUsage();
    const mb = (bytes: number) => Math.round(bytes / 1048576);
    console.log(
      `      heap ${mb(before)} MB before, ${mb(grown.heapTotal)} MB committed ` +
        `(${mb(slack)} MB unused) -> ${mb(after.heapTotal)} MB (${mb(after.heapTotal - after.heapUsed)} MB unused)`,
    );
    assert.ok(slack > 8 * 1024 * 1024, `the burst left ${mb(slack)} MB unused`);
    const growth = grown.heapTotal - before;
    assert.ok(growth > 8 * 1024 * 1024, `the burst grew the heap by ${mb(growth)} MB`);
    assert.ok(
      after.heapTotal - before < growth / 2,
      'at least half of what the burst grew was given back: ' +
        `${mb(before)} -> ${mb(grown.heapTotal)} -> ${mb(after.heapTotal)} MB`,
    );
    assert.equal(made, 2_400_000);
  });

  /**
   * 32 MB of socket-sized buffers (less than V8 lets pile up before it collects by itself), alive for
   * `aliveMs`, then all dead at once; the reducer looks every 20 ms, and only the buffers' growth (not
   * the heap's slack) starts its collections. Gives the buffers' MB when grown and once freed or 5 s on.
   */
  async function deadBuffersAfter(aliveMs: number): Promise<{ grown: number; after: number }> {
    const stop = reduceMemoryAfterBursts({
      intervalMs: 20,
      slackBytes: Number.MAX_SAFE_INTEGER,
      bufferSlackBytes: 8 * 1048576,
    });
    const kept: Buffer[] = Array.from({ length: 512 }, () => Buffer.allocUnsafeSlow(64 * 1024).fill(1));
    const grown = process.memoryUsage().arrayBuffers;
    if (aliveMs > 0) await new Promise((resolve) => setTimeout(resolve, aliveMs));
    kept.length = 0;
    const deadline = Date.now() + 5000;
    while (process.memoryUsage().arrayBuffers > grown - 24 * 1048576 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 20));
    stop();
    const mb = (bytes: number) => Math.round(bytes / 1048576);
    return { grown: mb(grown), after: mb(process.memoryUsage().arrayBuffers) };
  }

  it('frees the dead buffers a burst left outside a heap it did not grow', async () => {
    const { grown, after } = await deadBuffersAfter(0);
    console.log(`      buffers ${grown} MB with 32 MB dead -> ${after} MB`);
    assert.ok(after < grown - 24, `the dead buffers stayed: ${grown} -> ${after} MB`);
  });

  it('frees them too when a collection came during the burst, while they were alive', async () => {
    // The burst goes on for a few looks: their growth starts a collection that finds all 32 MB alive.
    const { grown, after } = await deadBuffersAfter(150);
    console.log(`      buffers ${grown} MB, collected alive, then dead -> ${after} MB`);
    assert.ok(after < grown - 24, `the dead buffers stayed: ${grown} -> ${after} MB`);
  });
});
