/**
 * `npm run fleet`: a fleet of simulated nodes (each the node's own control-protocol client: enroll,
 * standing connection, renewal, pushed events) against three controller replicas on PostgreSQL, and
 * the figures per node that decide how far one control plane goes (test/support/fleet.ts). Exits 1
 * when a target is missed. FLEET_NODES (default 10000) sets how many; FLEET_CONTROLLER_NODE_OPTIONS is
 * given to the replicas as NODE_OPTIONS (`--cpu-prof --cpu-prof-dir=DIR` profiles them).
 */
import { runFleet } from '../test/support/fleet.ts';
import { fleetTable, fleetVerdicts } from '../test/support/fleet-report.ts';

const nodes = Number(process.env.FLEET_NODES ?? '10000');
if (!Number.isInteger(nodes) || nodes < 10) {
  console.error('portal fleet: FLEET_NODES must be a whole number of 10 or more; unset it for 10000');
  process.exit(2);
}
const controllerOptions = process.env.FLEET_CONTROLLER_NODE_OPTIONS;
const figures = await runFleet({
  nodes,
  log: (line) => console.log(line),
  ...(controllerOptions ? { controllerEnv: { NODE_OPTIONS: controllerOptions } } : {}),
});
console.log('');
console.log(fleetTable(figures));
const missed = fleetVerdicts(figures);
for (const line of missed) console.log(`MISSED: ${line}`);
console.log(missed.length === 0 ? 'every target met' : `${missed.length} targets missed`);
process.exit(missed.length === 0 ? 0 : 1);
