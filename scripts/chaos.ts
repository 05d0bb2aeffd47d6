/**
 * `npm run chaos`: lose any one process. PostgreSQL with a synchronous standby, three controller
 * replicas, two relays, a pool of two outlets in front of a PostgreSQL target and an inlet, all real
 * processes on loopback; a client commits a row through the portal every 10 ms and an administrator
 * writes to the control plane every 100 ms, while each controller replica, each relay and each outlet
 * is killed (SIGKILL) and started again, one at a time, and then the database fails over. Prints, for
 * each, the longest gap in commits and in control-plane writes and what failed, and exits 1 when a
 * target is missed (test/support/chaos-scenario.ts chaosTargets).
 *
 * CHAOS_SETTLE_SECONDS (default 5) sets how long each process runs again before the next is killed.
 */
import { chaosTable, chaosTargets, chaosVerdicts, runChaos } from '../test/support/chaos-scenario.ts';

const settleMs = Number(process.env.CHAOS_SETTLE_SECONDS ?? '5') * 1000;
if (!Number.isFinite(settleMs) || settleMs < 500) {
  console.error('portal chaos: CHAOS_SETTLE_SECONDS must be a number of at least 0.5; unset it for 5');
  process.exit(2);
}
const report = await runChaos({ settleMs, log: (line) => console.log(line) });
console.log('');
console.log(chaosTable(report));
console.log('');
console.log(
  `targets: a relay or an outlet costs at most ${chaosTargets.dataPathLossMs} ms of commits and fails only what is ` +
    `in flight in that time; a controller replica or the database failover costs no commit and no gap over ` +
    `${chaosTargets.noGapMs} ms (or twice the machine's own pauses: the quiet stretch's longest gap, or the ` +
    `longest gap straight to the target meanwhile); control-plane writes resume ` +
    `within ${chaosTargets.replicaWritesMs} ms of a replica's loss (beyond the quiet stretch's longest gap ` +
    `between writes) and ${chaosTargets.failoverWritesMs} ms of the failover; every acknowledged row is in the target.`,
);
const missed = chaosVerdicts(report);
for (const line of missed) console.log(`MISSED: ${line}`);
console.log(missed.length === 0 ? 'every target met' : `${missed.length} targets missed`);
process.exit(missed.length === 0 ? 0 : 1);
