import assert from 'node:assert/strict';
import type { Attempt } from '../support/chaos-client.ts';
import { chaosVerdicts, longestGap, type ChaosReport, type KillReport } from '../support/chaos-scenario.ts';

const ok = (endedAt: number): Attempt => ({ seq: endedAt, startedAt: endedAt - 5, endedAt, ok: true });

const kill = (more: Partial<KillReport> & Pick<KillReport, 'name' | 'kind'>): KillReport => ({
  backInMs: 500,
  longestGapMs: 100,
  failed: 0,
  controlGapMs: 150,
  controlFailed: 0,
  bypassGapMs: 40,
  ...more,
});

const report = (kills: KillReport[], missing: number[] = []): ChaosReport => ({
  quiet: { longestGapMs: 50, controlGapMs: 120, bypassGapMs: 40 },
  kills,
  commits: 1000,
  missing,
});

describe('npm run chaos: how a run is judged', () => {
  it('measures the longest stretch without a success that meets the window, edges included', () => {
    const attempts = [ok(100), ok(110), { ...ok(400), ok: false }, ok(900), ok(920), ok(2000)];
    assert.equal(longestGap(attempts, 105, 850), 790, 'from 110 to 900: the failure in between does not count');
    assert.equal(longestGap(attempts, 105, 950), 1080, 'the stretch from 920, begun in the window, counts whole');
    assert.equal(longestGap(attempts, 930, 1000), 1080, 'a window inside one gap has that whole gap');
    assert.equal(longestGap([ok(100)], 200, 500), 400, 'no success since: up to the end of the window');
  });

  it('passes a run within the targets, and names every target a run misses', () => {
    assert.deepEqual(
      chaosVerdicts(
        report([
          kill({ name: 'controller 1', kind: 'controller' }),
          kill({ name: 'relay 1', kind: 'relay', longestGapMs: 1900, failed: 2, lastFailureMs: 30 }),
          kill({ name: 'database (failover)', kind: 'database', controlGapMs: 4900 }),
        ]),
      ),
      [],
    );
    assert.deepEqual(
      chaosVerdicts(
        report(
          [
            kill({ name: 'controller 1', kind: 'controller', failed: 1, failure: 'reset', controlGapMs: 2200 }),
            kill({ name: 'outlet 1', kind: 'outlet', longestGapMs: 2100, failed: 3, lastFailureMs: 2500 }),
            kill({ name: 'database (failover)', kind: 'database', longestGapMs: 600, controlGapMs: 5100 }),
          ],
          [7, 8],
        ),
      ),
      [
        'controller 1: 1 commits failed (none may), the last: reset',
        'controller 1: the control plane wrote nothing for 2200 ms (at most 2120)',
        'outlet 1: the commits stopped for 2100 ms (at most 2000)',
        'outlet 1: a commit failed 2500 ms after the kill (only those in flight in the first 2000 ms may): ?',
        'database (failover): the commits stopped for 600 ms (at most 500)',
        'database (failover): the control plane wrote nothing for 5100 ms (at most 5000)',
        '2 acknowledged rows are not in the target (seq 7, 8)',
      ],
    );
  });

  it("takes no gap to mean 500 ms, or twice the machine's own pauses where they are longer", () => {
    const loaded = (quietGapMs: number, gapMs: number, bypassGapMs = 40) =>
      chaosVerdicts({
        ...report([kill({ name: 'controller 1', kind: 'controller', longestGapMs: gapMs, bypassGapMs })]),
        quiet: { longestGapMs: quietGapMs, controlGapMs: 100, bypassGapMs: 40 },
      });
    assert.deepEqual(loaded(100, 500), []);
    assert.deepEqual(loaded(100, 501), ['controller 1: the commits stopped for 501 ms (at most 500)']);
    // The quiet stretch's longest gap.
    assert.deepEqual(loaded(324, 640), []);
    assert.deepEqual(loaded(324, 700), ['controller 1: the commits stopped for 700 ms (at most 648)']);
    // Or, over the kill's own time, the client's longest gap straight to the target, which no kill touches.
    assert.deepEqual(loaded(100, 547, 300), []);
    assert.deepEqual(loaded(100, 2000, 300), ['controller 1: the commits stopped for 2000 ms (at most 600)']);
  });

  it("gives a replica's loss 2 s of control-plane writes beyond the quiet stretch's own longest gap", () => {
    const judged = (quietControlGapMs: number, controlGapMs: number) =>
      chaosVerdicts({
        ...report([kill({ name: 'controller 2', kind: 'controller', controlGapMs })]),
        quiet: { longestGapMs: 50, controlGapMs: quietControlGapMs, bypassGapMs: 40 },
      });
    assert.deepEqual(judged(250, 2250), []);
    assert.deepEqual(judged(250, 2251), ['controller 2: the control plane wrote nothing for 2251 ms (at most 2250)']);
    // A loaded machine, where a write takes a second anyway.
    assert.deepEqual(judged(911, 2371), []);
    assert.deepEqual(judged(911, 3000), ['controller 2: the control plane wrote nothing for 3000 ms (at most 2911)']);
  });
});
