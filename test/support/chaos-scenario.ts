/**
 * The chaos scenario (`npm run chaos`, and its short form in the suite): in the world of
 * chaos-world.ts, with a client committing a row through the portal every 10 ms and an administrator
 * writing to the control plane every 100 ms, each controller replica, each relay and each outlet is
 * killed (SIGKILL) and started again, one at a time, then the database fails over. For each, the
 * longest gap in acknowledged commits and in control-plane writes, and the attempts that failed, from
 * the kill until `settleMs` after it serves again; at the end, whether every acknowledged row is in the
 * target. `chaosVerdicts` holds the targets.
 */
import {
  committedSeqs,
  createChaosTable,
  startCommittingClient,
  startPauseProbe,
  startControlPlaneWriter,
  type Attempt,
} from './chaos-client.ts';
import { startChaosWorld, type Victim } from './chaos-world.ts';

export interface KillReport {
  readonly name: string;
  readonly kind: Victim['kind'];
  /** From the kill until it served again (for the database: until the standby was promoted). */
  readonly backInMs: number;
  readonly longestGapMs: number;
  readonly failed: number;
  /** The last failed commit, after the kill; undefined when none failed. */
  readonly lastFailureMs?: number;
  readonly controlGapMs: number;
  readonly controlFailed: number;
  /** The same client's longest gap over the same time straight to the target, past every process killed. */
  readonly bypassGapMs: number;
  /** A failed commit's error, for the report. */
  readonly failure?: string;
}

export interface ChaosReport {
  /** The same figures over a quiet stretch before the first kill. */
  readonly quiet: { readonly longestGapMs: number; readonly controlGapMs: number; readonly bypassGapMs: number };
  readonly kills: readonly KillReport[];
  readonly commits: number;
  /** Rows whose commit the client saw acknowledged and that are not in the target. */
  readonly missing: readonly number[];
}

/** Targets: a relay or an outlet costs at most 2 s, and fails only what is in flight in its first 2 s. */
export const chaosTargets = {
  /** The longest gap in commits when a relay or an outlet is killed. */
  dataPathLossMs: 2_000,
  /**
   * "No gap": nothing longer than this between two commits (50 of the client's 10 ms periods), or than
   * twice the quiet stretch's own longest gap on a machine so loaded that its pauses exceed that.
   */
  noGapMs: 500,
  /** Control-plane writes through a database failover. */
  failoverWritesMs: 5_000,
  /**
   * Control-plane writes through the loss of a controller replica: the administrator fails over within
   * this, on top of the time a write takes anyway (the quiet stretch's longest gap between two writes,
   * which a loaded machine stretches to a second and more).
   */
  replicaWritesMs: 2_000,
} as const;

/** The longest stretch between two successes of `attempts` that meets [from, to]. */
export function longestGap(attempts: readonly Attempt[], from: number, to: number): number {
  const times = attempts
    .filter((attempt) => attempt.ok)
    .map((attempt) => attempt.endedAt)
    .sort((a, b) => a - b);
  let longest = 0;
  let previous = times.filter((time) => time <= from).at(-1) ?? from;
  for (const time of times.filter((time) => time > from)) {
    longest = Math.max(longest, time - previous);
    previous = time;
    if (time >= to) return Math.round(longest);
  }
  return Math.round(Math.max(longest, to - previous));
}

const during = (attempts: readonly Attempt[], from: number, to: number) =>
  attempts.filter((attempt) => attempt.endedAt >= from && attempt.startedAt <= to);

export async function runChaos(options: { settleMs: number; log?: (line: string) => void }): Promise<ChaosReport> {
  const log = options.log ?? (() => undefined);
  const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  log('starting PostgreSQL with a standby, 3 controller replicas, 2 relays, 2 outlets in a pool and an inlet');
  const world = await startChaosWorld();
  try {
    await createChaosTable(world.target);
    const client = startCommittingClient(world.target, world.inletPort);
    const bypass = startPauseProbe(world.target);
    const writer = startControlPlaneWriter(world.adminHome);
    const kills: KillReport[] = [];
    let quiet: ChaosReport['quiet'];
    try {
      const quietFrom = performance.now();
      await wait(options.settleMs * 2);
      const quietTo = performance.now();
      quiet = {
        longestGapMs: longestGap(client.attempts, quietFrom, quietTo),
        controlGapMs: longestGap(writer.attempts, quietFrom, quietTo),
        bypassGapMs: longestGap(bypass.attempts, quietFrom, quietTo),
      };
      for (const victim of world.victims) {
        log(`killing ${victim.name}`);
        const killedAt = performance.now();
        await victim.kill();
        await victim.restart();
        const backAt = performance.now();
        await wait(options.settleMs);
        const to = performance.now();
        const failures = during(client.attempts, killedAt, to).filter((attempt) => !attempt.ok);
        const lastFailure = failures.at(-1);
        const report: KillReport = {
          name: victim.name,
          kind: victim.kind,
          backInMs: Math.round(backAt - killedAt),
          longestGapMs: longestGap(client.attempts, killedAt, to),
          failed: failures.length,
          ...(lastFailure ? { lastFailureMs: Math.round(lastFailure.endedAt - killedAt) } : {}),
          controlGapMs: longestGap(writer.attempts, killedAt, to),
          controlFailed: during(writer.attempts, killedAt, to).filter((attempt) => !attempt.ok).length,
          bypassGapMs: longestGap(bypass.attempts, killedAt, to),
          ...(lastFailure?.error ? { failure: lastFailure.error } : {}),
        };
        kills.push(report);
        log(`  ${chaosRow(report)}`);
      }
    } finally {
      await Promise.all([client.stop(), bypass.stop(), writer.stop()]);
    }
    const kept = await committedSeqs(world.target);
    const acknowledged = client.attempts.filter((attempt) => attempt.ok);
    return {
      quiet,
      kills,
      commits: acknowledged.length,
      missing: acknowledged.filter((attempt) => !kept.has(attempt.seq)).map((attempt) => attempt.seq),
    };
  } finally {
    await world.close();
  }
}

/** Every target the report misses, one line each; none when the scenario passed. */
/**
 * `quietFactor`: how many times the machine's own pauses "no gap" allows when they are more than noGapMs
 * (2; the suite's short form, whose other lanes load the machine, gives 3). The machine's pauses are the
 * quiet stretch's longest gap, and over each kill's own time the longest gap of the same client straight
 * to the target: a pause that stops a client no kill can touch is the machine's, not the kill's.
 */
export function chaosVerdicts(report: ChaosReport, quietFactor = 2): string[] {
  const missed: string[] = [];
  for (const kill of report.kills) {
    const data = kill.kind === 'relay' || kill.kind === 'outlet';
    const machinePauseMs = Math.max(report.quiet.longestGapMs, kill.bypassGapMs);
    const noGapMs = Math.max(chaosTargets.noGapMs, quietFactor * machinePauseMs);
    const gapLimit = data ? chaosTargets.dataPathLossMs : noGapMs;
    if (kill.longestGapMs > gapLimit) {
      missed.push(`${kill.name}: the commits stopped for ${kill.longestGapMs} ms (at most ${gapLimit})`);
    }
    if (!data && kill.failed > 0) {
      missed.push(`${kill.name}: ${kill.failed} commits failed (none may), the last: ${kill.failure ?? '?'}`);
    }
    if (data && (kill.lastFailureMs ?? 0) > chaosTargets.dataPathLossMs) {
      missed.push(
        `${kill.name}: a commit failed ${kill.lastFailureMs} ms after the kill (only those in flight in the ` +
          `first ${chaosTargets.dataPathLossMs} ms may): ${kill.failure ?? '?'}`,
      );
    }
    const writesLimit =
      kill.kind === 'database'
        ? chaosTargets.failoverWritesMs
        : kill.kind === 'controller'
          ? chaosTargets.replicaWritesMs + report.quiet.controlGapMs
          : undefined;
    if (writesLimit !== undefined && kill.controlGapMs > writesLimit) {
      missed.push(`${kill.name}: the control plane wrote nothing for ${kill.controlGapMs} ms (at most ${writesLimit})`);
    }
  }
  if (report.missing.length > 0) {
    missed.push(
      `${report.missing.length} acknowledged rows are not in the target (seq ${report.missing.slice(0, 5).join(', ')})`,
    );
  }
  return missed;
}

function chaosRow(kill: KillReport): string {
  const failedLate = kill.lastFailureMs === undefined ? '' : ` (last at ${kill.lastFailureMs} ms)`;
  return (
    `${kill.name}: back in ${kill.backInMs} ms; longest commit gap ${kill.longestGapMs} ms; ` +
    `${kill.failed} failed${failedLate}; control-plane gap ${kill.controlGapMs} ms, ${kill.controlFailed} failed; ` +
    `straight to the target ${kill.bypassGapMs} ms`
  );
}

/** The report as a Markdown table, the quiet stretch first. */
export function chaosTable(report: ChaosReport): string {
  const lines = [
    '| killed (SIGKILL) | back in | longest commit gap | failed commits | control-plane write gap | failed writes ' +
      '| longest gap straight to the target |',
    '|---|---|---|---|---|---|---|',
    `| nothing (quiet) | | ${report.quiet.longestGapMs} ms | 0 | ${report.quiet.controlGapMs} ms | 0 | ` +
      `${report.quiet.bypassGapMs} ms |`,
    ...report.kills.map(
      (kill) =>
        `| ${kill.name} | ${(kill.backInMs / 1000).toFixed(1)} s | ${kill.longestGapMs} ms | ${kill.failed}` +
        `${kill.lastFailureMs === undefined ? '' : ` (last ${kill.lastFailureMs} ms after)`} | ` +
        `${kill.controlGapMs} ms | ${kill.controlFailed} | ${kill.bypassGapMs} ms |`,
    ),
  ];
  lines.push('', `${report.commits} commits acknowledged; ${report.missing.length} of them missing from the target.`);
  return lines.join('\n');
}
