/**
 * The measuring phases, each over every target (no tunnel, ssh -L, and Portal on each path) in turn,
 * each recording its figures into the table's rows.
 */
import { idleConnections } from './idle.ts';
import { pgbench } from './postgres.ts';
import { iperf, latency, percentile, warmUp, type Latency } from './probes.ts';
import { totalCpuSeconds } from './proc-stats.ts';
import type { Column, Figures, RowKey } from './report.ts';
import { settings } from './settings.ts';

export type Role = 'inlet' | 'outlet' | 'relay';

/** A port that leads to one service, and the processes that carry it there, by role. */
export interface Endpoint {
  readonly port: number;
  readonly roles: Readonly<Partial<Record<Role, () => number[]>>>;
}

export interface Target {
  /** Where the figures go: the no-tunnel column, the ssh -L column, a Portal path's, or a path's runtime floor. */
  readonly column: Column;
  readonly label: string;
  readonly iperf: Endpoint;
  readonly echo: Endpoint;
  readonly postgres: Endpoint;
}

const log = (text: string) => process.stdout.write(`  ${text}\n`);

function put(figures: Figures, key: RowKey, column: Column, value: number): void {
  const figure = (figures[key] ??= { portal: {}, floor: {} });
  if (column === 'none') figure.none = value;
  else if (column === 'ssh') figure.ssh = value;
  else if (typeof column === 'string') figure.portal[column] = value;
  else if ('tlsFloor' in column) (figure.tlsFloor ??= {})[column.tlsFloor] = value;
  else figure.floor[column.floor] = value;
}

/**
 * iperf3 throughput: the targets take turns, as throughput on a shared machine drifts from minute to minute;
 * each keeps its median.
 */
export async function throughputPhase(targets: readonly Target[], figures: Figures): Promise<void> {
  const runs = new Map<Target, number[]>(targets.map((target) => [target, []]));
  for (let round = 1; round <= settings.repeats; round += 1) {
    log(`iperf3 round ${round} of ${settings.repeats}…`);
    for (const target of targets)
      runs.get(target)?.push((await iperf(target.iperf.port, { seconds: settings.seconds })).bitsPerSecond / 1e9);
  }
  for (const target of targets) {
    const values = runs.get(target) as number[];
    put(figures, 'iperf', target.column, percentile(values, 50));
    log(`iperf3 ${target.label}: ${values.map((value) => value.toFixed(2)).join(', ')} Gbit/s`);
  }
}

/** Every process on a target's path (none for no tunnel), found again at each call: helpers may restart. */
function pathPids(target: Target): () => number[] {
  return () => Object.values(target.echo.roles).flatMap((pids) => pids?.() ?? []);
}

/**
 * Round trips and new connections: every target warmed up, then measured in rounds in which the
 * targets take turns (as for iperf3), each figure the median of the rounds' p50s (and p99s). On two cores a
 * single pass swings by a third from run to run with whatever else the machine was doing.
 */
export async function latencyPhase(targets: readonly Target[], figures: Figures): Promise<void> {
  for (const target of targets) {
    log(`warming up ${target.label}…`);
    await warmUp(target.echo.port);
  }
  const rounds = new Map<Target, Latency[]>(targets.map((target) => [target, []]));
  for (let round = 1; round <= settings.repeats; round += 1) {
    log(`round trips and new connections, round ${round} of ${settings.repeats}…`);
    for (const target of targets) rounds.get(target)?.push(await latency(target.echo.port, pathPids(target)));
  }
  for (const target of targets) {
    const measured = rounds.get(target) as Latency[];
    const median = (pick: (one: Latency) => number) => percentile(measured.map(pick), 50);
    put(
      figures,
      'rtt',
      target.column,
      median((one) => one.rttP50),
    );
    put(
      figures,
      'rttP99',
      target.column,
      median((one) => one.rttP99),
    );
    put(
      figures,
      'connect',
      target.column,
      median((one) => one.connectP50),
    );
    put(
      figures,
      'connectP99',
      target.column,
      median((one) => one.connectP99),
    );
    for (const [key, pick] of [
      ['rttCpu', (one: Latency) => one.rttCpu],
      ['connectCpu', (one: Latency) => one.connectCpu],
    ] as const) {
      const known = measured.map(pick).filter((value): value is number => value !== undefined);
      if (known.length > 0) put(figures, key, target.column, percentile(known, 50));
    }
    const each = (pick: (one: Latency) => number, digits: number) =>
      measured.map((one) => pick(one).toFixed(digits)).join(', ');
    log(
      `${target.label}: rtt p50 ${each((one) => one.rttP50, 0)} µs (p99 ${each((one) => one.rttP99, 0)}); ` +
        `new connection p50 ${each((one) => one.connectP50, 2)} ms (p99 ${each((one) => one.connectP99, 2)})`,
    );
  }
}

/** CPU seconds of every process on the path per GiB carried, while iperf3 sends a fixed amount. */
export async function cpuPhase(targets: readonly Target[], figures: Figures): Promise<void> {
  for (const target of targets) {
    const roles = Object.entries(target.iperf.roles);
    if (roles.length === 0) continue;
    const before = new Map(roles.flatMap(([, pids]) => pids()).map((pid) => [pid, totalCpuSeconds([pid])]));
    const carried = await iperf(target.iperf.port, { bytes: settings.cpuBytes });
    // Processes forked during the run (an sshd child) count from zero.
    const byRole = roles.map(
      ([role, pids]) =>
        [role, pids().reduce((sum, pid) => sum + totalCpuSeconds([pid]) - (before.get(pid) ?? 0), 0)] as const,
    );
    const used = byRole.reduce((sum, [, seconds]) => sum + seconds, 0);
    const gib = carried.bytes / 1024 ** 3;
    put(figures, 'cpu', target.column, used / gib);
    // The relay's own share, beside its floor's middle process: what a relay machine pays per GiB.
    const { column } = target;
    const path = typeof column !== 'object' ? column : 'floor' in column ? column.floor : column.tlsFloor;
    const relay = byRole.find(([role]) => role === 'relay');
    if (relay && path === 'relayed') put(figures, 'cpuRelay', target.column, relay[1] / gib);
    const parts = byRole.map(([role, seconds]) => `${role} ${seconds.toFixed(2)}`).join(', ');
    log(
      `CPU ${target.label}: ${used.toFixed(2)} s (${parts}) for ${gib.toFixed(2)} GiB at ` +
        `${(carried.bitsPerSecond / 1e9).toFixed(2)} Gbit/s = ${(used / gib).toFixed(2)} s/GiB`,
    );
  }
}

const pgbenchRows: readonly { key: RowKey; label: string; selectOnly: boolean; clients: number }[] = [
  { key: 'pgSelect8', label: 'select-only, 8 clients', selectOnly: true, clients: 8 },
  { key: 'pgTpcb8', label: 'TPC-B, 8 clients', selectOnly: false, clients: 8 },
  { key: 'pgSelect1', label: 'select-only, 1 client', selectOnly: true, clients: 1 },
  { key: 'pgTpcb1', label: 'TPC-B, 1 client', selectOnly: false, clients: 1 },
];

/** pgbench runs, the targets taking turns within each round; each keeps its best. */
export async function pgbenchPhase(targets: readonly Target[], figures: Figures): Promise<void> {
  const best = new Map<string, number>();
  for (let round = 1; round <= settings.pgbenchRounds; round += 1) {
    for (const row of pgbenchRows) {
      log(`pgbench round ${round} of ${settings.pgbenchRounds}, ${row.label}…`);
      for (const target of targets) {
        const tps = await pgbench(target.postgres.port, row);
        const key = `${row.key} ${target.label}`;
        best.set(key, Math.max(best.get(key) ?? 0, tps));
        log(`  ${target.label}: ${tps.toFixed(0)} TPS`);
      }
    }
  }
  for (const row of pgbenchRows)
    for (const target of targets)
      put(figures, row.key, target.column, best.get(`${row.key} ${target.label}`) as number);
}

const rssRows: Record<Role, RowKey> = { inlet: 'rssInlet', outlet: 'rssOutlet', relay: 'rssRelay' };

/** Idle connections through each tunnel's echo entrance; memory growth per connection by role. */
export async function idlePhase(targets: readonly Target[], figures: Figures): Promise<string[]> {
  const problems: string[] = [];
  for (const target of targets) {
    const roles = target.echo.roles as Record<string, () => number[]>;
    if (Object.keys(roles).length === 0) continue;
    log(`${settings.idleConnections} idle connections, ${target.label}…`);
    const result = await idleConnections(target.echo.port, roles, (text) => log(`  ${text}`));
    const growth = Object.entries(result.kibPerConnection).map(([role, kib]) => `${role} ${kib.toFixed(1)} KiB`);
    log(`  ${result.answered} of ${result.opened} answered after the idle time; per connection: ${growth.join(', ')}`);
    if (result.opened < result.wanted || result.answered < result.opened) {
      problems.push(
        `${target.label}: ${result.opened} of ${result.wanted} idle connections opened, ` +
          `${result.answered} answered after ${settings.idleSeconds} s`,
      );
    }
    put(figures, 'idleAnswered', target.column, result.answered);
    if (result.opened > 0)
      for (const [role, kib] of Object.entries(result.kibPerConnection))
        put(figures, rssRows[role as Role], target.column, kib);
  }
  return problems;
}
