/**
 * The short form of `npm run chaos` (scripts/chaos.ts): the same world and the same kills, with one
 * second of running again between them instead of five.
 */
import assert from 'node:assert/strict';
import { chaosTable, chaosVerdicts, runChaos } from '../support/chaos-scenario.ts';

describe('chaos: lose any one process (the short form of npm run chaos)', function () {
  this.timeout(300_000);

  it('kills each controller replica, relay and outlet, then fails the database over, within the targets', async () => {
    const report = await runChaos({ settleMs: 1000 });
    console.log(
      chaosTable(report)
        .split('\n')
        .map((line) => `      ${line}`)
        .join('\n'),
    );
    assert.deepEqual(
      report.kills.map((kill) => kill.name),
      [
        'controller 1',
        'controller 2',
        'controller 3',
        'relay 1',
        'relay 2',
        'outlet 1',
        'outlet 2',
        'database (failover)',
      ],
    );
    assert.deepEqual(chaosVerdicts(report), []);
    // Many fewer than one a period on a loaded machine (a new connection authenticates), but all along.
    assert.ok(report.commits > 200, `the client committed through the run (${report.commits} commits)`);
  });
});
