import assert from 'node:assert/strict';
import { ReportBudget } from '../../src/controller/audit-budget.ts';

const figures = {
  member: { records: { perSecond: 10, burst: 100 }, bytes: { perSecond: 1000, burst: 10_000 } },
  total: { records: { perSecond: 15, burst: 150 }, bytes: { perSecond: 100_000, burst: 1_000_000 } },
  keys: 10,
};
const sizes = (count: number, bytes = 10) => Array<number>(count).fill(bytes);

describe('audit budget: what a member may write, and when it may send the rest', () => {
  it('takes a batch as far as the burst goes, then tells when the rest fits', () => {
    const budget = new ReportBudget(figures, 0);
    assert.deepEqual(budget.admit('m1', sizes(60), 0), { taken: 60, retryAfterMs: 0, early: false });
    // 40 left: the rest of a batch of 60 needs 20 more, two seconds at 10 a second.
    assert.deepEqual(budget.admit('m1', sizes(60), 0), { taken: 40, retryAfterMs: 2000, early: false });
    assert.equal(budget.waiting('m1', 1000), 1000);
    // Sent before then: refused whole, without being taken.
    assert.deepEqual(budget.admit('m1', sizes(20), 1999), { taken: 0, retryAfterMs: 1, early: true });
    // On time: what it was told fits, fits.
    assert.deepEqual(budget.admit('m1', sizes(20), 2000), { taken: 20, retryAfterMs: 0, early: false });
  });

  it('bounds bytes as well as records', () => {
    const budget = new ReportBudget(figures, 0);
    // 10,000 bytes of burst: four records of 3,000 bytes do not fit, three do.
    const admitted = budget.admit('m1', sizes(4, 3000), 0);
    assert.equal(admitted.taken, 3);
    assert.equal(admitted.retryAfterMs, 2000);
  });

  it('shares one budget among all members, so that many cannot flood together', () => {
    const budget = new ReportBudget(figures, 0);
    assert.equal(budget.admit('m1', sizes(100), 0).taken, 100);
    // m2's own bucket is full, the shared one holds 50.
    const second = budget.admit('m2', sizes(100), 0);
    assert.equal(second.taken, 50);
    assert.equal(second.retryAfterMs, Math.ceil((50 / 15) * 1000));
  });

  it('forgets members whose buckets are full again, and keeps at most its bound of them', () => {
    const budget = new ReportBudget(figures, 0);
    for (let n = 0; n < 50; n += 1) budget.admit(`m${n}`, sizes(100), 0);
    // Each of the 50 spent its burst; the newest are kept, the oldest forgotten past the bound.
    assert.equal(budget.waiting('m0', 1), 0);
    assert.ok(budget.waiting('m49', 1) > 0);
  });
});
