/** How `npm run fleet` judges and prints its figures (test/support/fleet.ts). Pure. */
import type { FleetFigures } from './fleet.ts';

export const fleetTargets = {
  /** The replicas' CPU per renewal. */
  cpuPerRenewalMs: 2,
  /** Resident memory per idle connected node, on each replica. */
  idleBytesPerNode: 20 * 1024,
  /** A pushed event reaches 99 % of the nodes within this. */
  eventP99Ms: 1000,
} as const;

export function fleetVerdicts(figures: FleetFigures): string[] {
  const missed: string[] = [];
  if (figures.cpuPerRenewalMs > fleetTargets.cpuPerRenewalMs) {
    missed.push(`controller CPU per renewal ${figures.cpuPerRenewalMs} ms (at most ${fleetTargets.cpuPerRenewalMs})`);
  }
  for (const [index, bytes] of figures.idleBytesPerNode.entries()) {
    if (bytes > fleetTargets.idleBytesPerNode) {
      missed.push(
        `replica ${index + 1} holds ${(bytes / 1024).toFixed(1)} KB per idle node ` +
          `(at most ${fleetTargets.idleBytesPerNode / 1024})`,
      );
    }
  }
  for (const [what, reach] of [
    ['a revocation', figures.revocation],
    ['a relay announced', figures.relayAnnounced],
  ] as const) {
    if (reach.reached < figures.nodes - 1)
      missed.push(`${what} reached ${reach.reached} of ${figures.nodes - 1} nodes`);
    if (reach.p99Ms > fleetTargets.eventP99Ms) {
      missed.push(`${what} reached 99 % of the nodes in ${reach.p99Ms} ms (at most ${fleetTargets.eventP99Ms})`);
    }
  }
  return missed;
}

export function fleetTable(figures: FleetFigures): string {
  const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
  const reach = (r: FleetFigures['revocation']) =>
    `p50 ${r.p50Ms} ms, p99 ${r.p99Ms} ms, last ${r.lastMs} ms (${r.reached} nodes)`;
  return [
    `| ${figures.nodes} nodes, ${figures.replicas} replicas | figure | target |`,
    '|---|---|---|',
    `| enrollments per second | ${figures.enrollmentsPerSecond} | |`,
    `| controller CPU per enrollment | ${figures.cpuPerEnrollmentMs} ms | |`,
    `| renewals per second (all at once) | ${figures.renewalsPerSecond} | |`,
    `| controller CPU per renewal | ${figures.cpuPerRenewalMs} ms | ≤ ${fleetTargets.cpuPerRenewalMs} ms |`,
    `| memory per idle connected node, per replica | ${figures.idleBytesPerNode.map(kb).join(', ')} | ` +
      `≤ ${kb(fleetTargets.idleBytesPerNode)} |`,
    `| a revocation reaches every node | ${reach(figures.revocation)} | p99 ≤ ${fleetTargets.eventP99Ms} ms |`,
    `| a relay's arrival reaches every node | ${reach(figures.relayAnnounced)} | p99 ≤ ${fleetTargets.eventP99Ms} ms |`,
    `| standing connections lost over the run (made again by their node) | ${figures.connectionsLost} | |`,
    `| renewals that waited for a connection made again | ${figures.renewalsRetried} | |`,
  ].join('\n');
}
