/**
 * The final table: every figure of each Portal path beside its runtime floor (the same traffic through
 * as many bare Node.js proxies as the path has processes) and `ssh -L`, each judged against its target,
 * which is a ratio to the floor of the same run (or, for memory, a bound on the figure itself). Pure.
 */

export type PathName = 'relayed' | 'direct';

/**
 * A table column: no tunnel, ssh -L, a Portal path, or a floor of a path (bare Node.js proxies): plain,
 * or with Node.js's TLS between the first and the last.
 */
export type Column = 'none' | 'ssh' | PathName | { readonly floor: PathName } | { readonly tlsFloor: PathName };

export type RowKey =
  | 'pgSelect8'
  | 'pgTpcb8'
  | 'pgSelect1'
  | 'pgTpcb1'
  | 'iperf'
  | 'rtt'
  | 'rttP99'
  | 'connect'
  | 'connectP99'
  | 'rttCpu'
  | 'connectCpu'
  | 'cpu'
  | 'cpuRelay'
  | 'idleAnswered'
  | 'rssInlet'
  | 'rssOutlet'
  | 'rssRelay';

/** A bound on a path's ratio to its floor, or on its own figure (memory). */
export interface Target {
  readonly on: 'floor' | 'value';
  readonly bound: number;
}

interface RowSpec {
  readonly key: RowKey;
  readonly label: string;
  readonly better: 'higher' | 'lower';
  readonly digits: number;
  readonly targets: Readonly<Partial<Record<PathName, Target>>>;
  /** Whether a ratio to the floor and to ssh -L means anything here. @default true */
  readonly ratio?: boolean;
}

const floor = (bound: number): Target => ({ on: 'floor', bound });
const kib = (bound: number): Target => ({ on: 'value', bound });
/** The same bound on both paths: each is judged against its own floor (2 and 3 processes). */
const both = (target: Target) => ({ direct: target, relayed: target });

export const rows: readonly RowSpec[] = [
  { key: 'pgSelect8', label: 'pgbench select-only 8c (TPS)', better: 'higher', digits: 0, targets: both(floor(0.9)) },
  { key: 'pgTpcb8', label: 'pgbench TPC-B 8c (TPS)', better: 'higher', digits: 0, targets: both(floor(0.9)) },
  { key: 'pgSelect1', label: 'pgbench select-only 1c (TPS)', better: 'higher', digits: 0, targets: both(floor(0.9)) },
  { key: 'pgTpcb1', label: 'pgbench TPC-B 1c (TPS)', better: 'higher', digits: 0, targets: both(floor(0.9)) },
  { key: 'iperf', label: 'iperf3 (Gbit/s)', better: 'higher', digits: 2, targets: both(floor(0.9)) },
  { key: 'rtt', label: 'rtt p50, 64 B (µs)', better: 'lower', digits: 0, targets: both(floor(1.1)) },
  { key: 'rttP99', label: 'rtt p99, 64 B (µs)', better: 'lower', digits: 0, targets: both(floor(1.5)) },
  { key: 'connect', label: 'new conn p50 (ms)', better: 'lower', digits: 2, targets: both(floor(1.15)) },
  { key: 'connectP99', label: 'new conn p99 (ms)', better: 'lower', digits: 2, targets: {} },
  // What a round trip and a new connection cost in CPU, every process on the path: the steadiest view of
  // what Portal adds to them on a shared machine, where the times themselves swing with the neighbours.
  { key: 'rttCpu', label: 'CPU per rtt, 64 B (µs)', better: 'lower', digits: 0, targets: {} },
  { key: 'connectCpu', label: 'CPU per new conn (µs)', better: 'lower', digits: 0, targets: {} },
  { key: 'cpu', label: 'CPU, every process (s/GiB)', better: 'lower', digits: 2, targets: both(floor(1.2)) },
  {
    key: 'cpuRelay',
    label: "CPU, the relay's own (s/GiB)",
    better: 'lower',
    digits: 2,
    targets: { relayed: floor(1) },
  },
  { key: 'idleAnswered', label: 'idle conns still answering', better: 'higher', digits: 0, targets: {}, ratio: false },
  { key: 'rssInlet', label: 'RSS/idle conn inlet|ssh (KiB)', better: 'lower', digits: 1, targets: { direct: kib(16) } },
  {
    key: 'rssOutlet',
    label: 'RSS/idle conn outlet|sshd (KiB)',
    better: 'lower',
    digits: 1,
    targets: { direct: kib(16) },
  },
  { key: 'rssRelay', label: 'RSS/idle conn relay (KiB)', better: 'lower', digits: 1, targets: { relayed: kib(4) } },
];

export interface Figure {
  /** No tunnel. */
  none?: number;
  ssh?: number;
  portal: Partial<Record<PathName, number>>;
  /** Through as many bare Node.js proxies as the path has processes. */
  floor: Partial<Record<PathName, number>>;
  /** The same with TLS 1.3 from the first proxy to the last. */
  tlsFloor?: Partial<Record<PathName, number>>;
}

export type Figures = Partial<Record<RowKey, Figure>>;

const shown = (value: number | undefined, digits: number) =>
  value === undefined || Number.isNaN(value) ? '—' : value.toFixed(digits);

/**
 * A Portal path's figure divided by its floor's (`to: 'tlsFloor'`: by its TLS floor's, `'ssh'`: by ssh
 * -L's); undefined when either is missing.
 */
export function ratioOf(
  figure: Figure | undefined,
  path: PathName,
  to: 'floor' | 'tlsFloor' | 'ssh' = 'floor',
): number | undefined {
  const value = figure?.portal[path];
  const base = to === 'ssh' ? figure?.ssh : figure?.[to]?.[path];
  if (value === undefined || base === undefined || !(base > 0)) return undefined;
  return value / base;
}

export type Verdict = 'met' | 'not met' | 'not measured' | 'no target';

/** Whether the path meets the row's target, and the target as written ("≥ 0.90x floor", "≤ 16 KiB"). */
export function judge(spec: RowSpec, figure: Figure | undefined, path: PathName): { verdict: Verdict; bound: string } {
  const target = spec.targets[path];
  if (!target) return { verdict: 'no target', bound: '—' };
  const sign = spec.better === 'higher' ? '≥' : '≤';
  const bound = target.on === 'floor' ? `${sign} ${target.bound.toFixed(2)}x floor` : `${sign} ${target.bound} KiB`;
  const value = target.on === 'floor' ? ratioOf(figure, path) : figure?.portal[path];
  if (value === undefined || Number.isNaN(value)) return { verdict: 'not measured', bound };
  const met = spec.better === 'higher' ? value >= target.bound : value <= target.bound;
  return { verdict: met ? 'met' : 'not met', bound };
}

/** "≥ 0.90x floor met", "≤ 4 KiB NOT met", "—" where the row has no target for the path. */
export function verdict(spec: RowSpec, figure: Figure | undefined, path: PathName): string {
  const { verdict: found, bound } = judge(spec, figure, path);
  if (found === 'no target') return '—';
  return `${bound} ${found === 'not met' ? 'NOT met' : found}`;
}

const ratioText = (value: number | undefined) => (value === undefined ? '—' : `${value.toFixed(2)}x`);

/**
 * The table as lines: figure | no tunnel | ssh -L | per path: its floor, its TLS floor (when measured),
 * Portal, Portal ÷ floor, Portal ÷ TLS floor, Portal ÷ ssh -L, the target and whether it is met.
 */
export function table(figures: Figures, paths: readonly PathName[]): string[] {
  const withTls = (path: PathName) => rows.some((spec) => figures[spec.key]?.tlsFloor?.[path] !== undefined);
  const header = [
    'figure',
    'no tunnel',
    'ssh -L',
    ...paths.flatMap((path) => [
      `floor ${path}`,
      ...(withTls(path) ? [`TLS floor ${path}`] : []),
      `portal ${path}`,
      '÷ floor',
      ...(withTls(path) ? ['÷ TLS floor'] : []),
      '÷ ssh',
      `target ${path}`,
    ]),
  ];
  const body = rows
    .filter((spec) => figures[spec.key] !== undefined)
    .map((spec) => {
      const figure = figures[spec.key];
      return [
        spec.label,
        shown(figure?.none, spec.digits),
        shown(figure?.ssh, spec.digits),
        ...paths.flatMap((path) => [
          shown(figure?.floor[path], spec.digits),
          ...(withTls(path) ? [shown(figure?.tlsFloor?.[path], spec.digits)] : []),
          shown(figure?.portal[path], spec.digits),
          spec.ratio === false ? '—' : ratioText(ratioOf(figure, path)),
          ...(withTls(path) ? [spec.ratio === false ? '—' : ratioText(ratioOf(figure, path, 'tlsFloor'))] : []),
          spec.ratio === false ? '—' : ratioText(ratioOf(figure, path, 'ssh')),
          verdict(spec, figure, path),
        ]),
      ];
    });
  return aligned(header, body);
}

/** One line: how many of the measured targets each path meets, and which it misses. */
export function summary(figures: Figures, paths: readonly PathName[]): string[] {
  return paths.map((path) => {
    const judged = rows
      .filter((spec) => figures[spec.key] !== undefined)
      .map((spec) => ({ spec, ...judge(spec, figures[spec.key], path) }))
      .filter((one) => one.verdict === 'met' || one.verdict === 'not met');
    const missed = judged.filter((one) => one.verdict === 'not met').map((one) => one.spec.label);
    if (judged.length === 0)
      return `portal ${path}: no target judged (each needs its floor, and BENCH_FLOORS=0 leaves it out)`;
    return (
      `portal ${path}: ${judged.length - missed.length} of ${judged.length} targets met` +
      (missed.length > 0 ? `; not met: ${missed.join(', ')}` : '')
    );
  });
}

function aligned(header: readonly string[], body: readonly (readonly string[])[]): string[] {
  const widths = header.map((_, column) =>
    Math.max(...[header, ...body].map((cells) => (cells[column] as string).length)),
  );
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) =>
        column === 0 ? cell.padEnd(widths[column] as number) : cell.padStart(widths[column] as number),
      )
      .join(' | ');
  return [line(header), widths.map((width) => '-'.repeat(width)).join('-|-'), ...body.map(line)];
}
