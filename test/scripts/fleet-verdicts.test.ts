import assert from 'node:assert/strict';
import type { FleetFigures } from '../support/fleet.ts';
import { fleetTable, fleetVerdicts } from '../support/fleet-report.ts';

const reach = { reached: 9999, p50Ms: 200, p99Ms: 600, lastMs: 650 };
const figures: FleetFigures = {
  nodes: 10_000,
  replicas: 3,
  enrollmentsPerSecond: 100,
  renewalsPerSecond: 700,
  cpuPerRenewalMs: 1.8,
  cpuPerEnrollmentMs: 9,
  idleBytesPerNode: [15_000, 16_000, 17_000],
  revocation: reach,
  relayAnnounced: reach,
  connectionsLost: 0,
  renewalsRetried: 0,
};

describe('npm run fleet: how its figures are judged', () => {
  it('passes figures within the targets and prints each with its target', () => {
    assert.deepEqual(fleetVerdicts(figures), []);
    const table = fleetTable(figures);
    assert.match(table, /\| controller CPU per renewal \| 1\.8 ms \| ≤ 2 ms \|/);
    assert.match(
      table,
      /\| memory per idle connected node, per replica \| 14\.6 KB, 15\.6 KB, 16\.6 KB \| ≤ 20\.0 KB \|/,
    );
  });

  it('names every target missed', () => {
    assert.deepEqual(
      fleetVerdicts({
        ...figures,
        cpuPerRenewalMs: 2.5,
        idleBytesPerNode: [15_000, 30_720, 17_000],
        revocation: { ...reach, reached: 9000, p99Ms: 1500 },
      }),
      [
        'controller CPU per renewal 2.5 ms (at most 2)',
        'replica 2 holds 30.0 KB per idle node (at most 20)',
        'a revocation reached 9000 of 9999 nodes',
        'a revocation reached 99 % of the nodes in 1500 ms (at most 1000)',
      ],
    );
  });
});
