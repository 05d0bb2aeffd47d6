import assert from 'node:assert/strict';
import { renewalRetryMs } from '../../src/node/renewal.ts';
import { renewalRetryFloorMs, renewalRetryMaxMs } from '../../src/node/limits.ts';

describe('node: retrying a failed certificate renewal', () => {
  it('waits the backoff while the certificate has long to live', () => {
    assert.equal(renewalRetryMs(renewalRetryMaxMs, 30 * 60_000), renewalRetryMaxMs);
  });

  it('never waits more than a quarter of what is left, so that a retry comes before the end', () => {
    // A database down for 30 s: the backoff grew to 30 s, and 12 s are left.
    assert.equal(renewalRetryMs(renewalRetryMaxMs, 12_000), 3000);
    // Retried at each quarter of what is left, down to the floor: several tries before the end.
    let remaining = 12_000;
    let tries = 0;
    while (remaining > 0) {
      remaining -= renewalRetryMs(renewalRetryMaxMs, remaining);
      tries += 1;
    }
    assert.ok(tries >= 8, `${tries} tries in the last 12 s`);
    assert.equal(renewalRetryMs(renewalRetryMaxMs, 100), renewalRetryFloorMs);
  });

  it('waits the backoff once the certificate has expired (it is re-issued when the controller answers)', () => {
    assert.equal(renewalRetryMs(8000, -1000), 8000);
  });
});
