import assert from 'node:assert/strict';
import { setTimeout as delay } from 'node:timers/promises';
import { sweepDeadReadBuffers } from '../../src/shared/read-buffer-sweep.ts';
import { optionsWork } from '../../src/shared/exposed-gc.ts';

describe('dead read buffers swept by a young-generation collection', () => {
  it('sweeps once the memory outside the heap grew by the bound, and never for what stays alive', async () => {
    let external = 1000;
    const asked: string[] = [];
    const stop = sweepDeadReadBuffers({
      intervalMs: 2,
      growthBytes: 100,
      external: () => external,
      collect: (options) => {
        asked.push(`${options?.type}`);
        external -= 60; // what was dead goes; the rest is alive
      },
    });
    try {
      external = 1090;
      await delay(30);
      assert.deepEqual(asked, [], 'below the bound: nothing');
      external = 1110;
      await delay(30);
      assert.deepEqual(asked, ['minor'], 'past it: one young-generation collection');
      await delay(30);
      assert.equal(asked.length, 1, 'what the collection left is alive and the new level');
      external = 900; // freed by V8 on its own: the level goes down with it
      await delay(30);
      external = 1010;
      await delay(30);
      assert.equal(asked.length, 2, '100 above the lower level');
    } finally {
      stop();
    }
  });

  it("asks V8 for one only where its collection honours the request's type", () => {
    // Node.js 20's V8 ignores every option: there, the sweep does nothing rather than a full collection.
    const stop = sweepDeadReadBuffers({ intervalMs: 1000 });
    stop();
    assert.equal(optionsWork('11.3.244.8'), false);
    assert.equal(optionsWork('13.6.233.10'), true);
  });
});
