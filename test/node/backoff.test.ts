import assert from 'node:assert/strict';
import { Backoff } from '../../src/node/backoff.ts';
import { reconnectInitialMs, reconnectJitter, reconnectMaxMs } from '../../src/node/limits.ts';

describe('reconnect backoff', () => {
  it('doubles from its first delay to its most, each spread by the jitter, and starts over on success', () => {
    const spread = (base: number) => [
      Math.floor(base * (1 - reconnectJitter)),
      Math.ceil(base * (1 + reconnectJitter)),
    ];
    const runs = Array.from({ length: 200 }, () => {
      const backoff = new Backoff();
      return Array.from({ length: 8 }, () => backoff.next());
    });
    for (let attempt = 0; attempt < 8; attempt += 1) {
      const base = Math.min(reconnectMaxMs, reconnectInitialMs * 2 ** attempt);
      const [low, high] = spread(base);
      const delays = runs.map((run) => run[attempt] ?? NaN);
      assert.ok(
        delays.every((delay) => delay >= low! && delay <= high!),
        `attempt ${attempt}: ${low}..${high}`,
      );
      // Nodes that lost the same peer do not come back in step: the delays differ.
      assert.ok(new Set(delays).size > 10, `attempt ${attempt}: spread`);
    }
    const backoff = new Backoff();
    backoff.next();
    backoff.next();
    assert.equal(backoff.failures, 2);
    backoff.reset();
    const [low, high] = spread(reconnectInitialMs);
    const first = backoff.next();
    assert.ok(first >= low! && first <= high!, `after a success the first delay again: ${first}`);
  });
});
