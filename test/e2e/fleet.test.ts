/**
 * The short form of `npm run fleet` (scripts/fleet.ts): 200 simulated nodes against three controller
 * replicas on PostgreSQL, each enrolled, holding its standing connection, renewed, and hearing a
 * revocation and a relay's arrival. The per-node figures are judged at 10,000 nodes by the script; here,
 * that the whole cycle works and that pushed events reach every node within the target.
 */
import assert from 'node:assert/strict';
import { runFleet } from '../support/fleet.ts';
import { fleetTable, fleetTargets } from '../support/fleet-report.ts';

describe('fleet: simulated nodes against three controller replicas (the short form of npm run fleet)', function () {
  this.timeout(300_000);

  it('enrolls, holds, renews and reaches every node with what the controllers push', async () => {
    const figures = await runFleet({ nodes: 200 });
    console.log(
      fleetTable(figures)
        .split('\n')
        .map((line) => `      ${line}`)
        .join('\n'),
    );
    assert.ok(figures.enrollmentsPerSecond > 0 && figures.renewalsPerSecond > 0);
    assert.ok(figures.cpuPerRenewalMs > 0, 'the replicas spent CPU on the renewals, as /proc says');
    for (const reach of [figures.revocation, figures.relayAnnounced]) {
      assert.equal(reach.reached, 199, 'every node but the revoked one heard');
      assert.ok(reach.p99Ms <= fleetTargets.eventP99Ms, `p99 ${reach.p99Ms} ms`);
    }
  });
});
