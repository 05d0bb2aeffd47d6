/** The final table: every figure, each Portal path's ratio to ssh -L, and the targets met or not. Pure. */

export type PathName = 'relayed' | 'direct';

/** A table column: no tunnel, ssh -L, a Portal path, or the runtime floor of a path (bare Node.js proxies). */
export type Column = 'none' | 'ssh' | PathName | { readonly floor: PathName };

export type RowKey =
  | 'pgSelect8'
  | 'pgTpcb8'
  | 'pgSelect1'
  | 'pgTpcb1'
  | 'iperf'
  | 'rtt'
  | 'connect'
  | 'cpu'
  | 'idleAnswered'
  | 'rssInlet'
  | 'rssOutlet'
  | 'rssRelay';

/** A bound on a path's ratio to ssh -L, or on its own figure (memory). */
export interface Target {
  readonly on: 'ratio' | 'value';
  readonly bound: number;
}

interface RowSpec {
  readonly key: RowKey;
  readonly label: string;
  readonly better: 'higher' | 'lower';
  readonly digits: number;
  readonly targets: Readonly<Partial<Record<PathName, Target>>>;
  /** Whether a ratio to ssh -L means anything here. @default true */
  readonly ratio?: boolean;
}

const ratio = (bound: number): Target => ({ on: 'ratio', bound });
const kib = (bound: number): Target => ({ on: 'value', bound });
const pgbenchTargets = { direct: ratio(1.0), relayed: ratio(0.8) };

export const rows: readonly RowSpec[] = [
  { key: 'pgSelect8', label: 'pgbench select-only 8c (TPS)', better: 'higher', digits: 0, targets: pgbenchTargets },
  { key: 'pgTpcb8', label: 'pgbench TPC-B 8c (TPS)', better: 'higher', digits: 0, targets: pgbenchTargets },
  { key: 'pgSelect1', label: 'pgbench select-only 1c (TPS)', better: 'higher', digits: 0, targets: pgbenchTargets },
  { key: 'pgTpcb1', label: 'pgbench TPC-B 1c (TPS)', better: 'higher', digits: 0, targets: pgbenchTargets },
  {
    key: 'iperf',
    label: 'iperf3 (Gbit/s)',
    better: 'higher',
    digits: 2,
    targets: { direct: ratio(1.0), relayed: ratio(0.8) },
  },
  {
    key: 'rtt',
    label: 'rtt p50, 64 B (µs)',
    better: 'lower',
    digits: 0,
    targets: { direct: ratio(1.2), relayed: ratio(1.5) },
  },
  {
    key: 'connect',
    label: 'new conn p50 (ms)',
    better: 'lower',
    digits: 2,
    targets: { direct: ratio(1.0), relayed: ratio(1.5) },
  },
  {
    key: 'cpu',
    label: 'CPU (s/GiB)',
    better: 'lower',
    digits: 2,
    targets: { direct: ratio(1.0), relayed: ratio(1.5) },
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
}

export type Figures = Partial<Record<RowKey, Figure>>;

const shown = (value: number | undefined, digits: number) =>
  value === undefined || Number.isNaN(value) ? '—' : value.toFixed(digits);

export function ratioToSsh(
  figure: Figure | undefined,
  path: PathName,
  of: 'portal' | 'floor' = 'portal',
): number | undefined {
  const value = figure?.[of][path];
  if (value === undefined || figure?.ssh === undefined || !(figure.ssh > 0)) return undefined;
  return value / figure.ssh;
}

/** "≥ 0.8x met", "≤ 4 KiB NOT met", "—" where the row has no target for the path. */
export function verdict(spec: RowSpec, figure: Figure | undefined, path: PathName): string {
  const target = spec.targets[path];
  if (!target) return '—';
  const sign = spec.better === 'higher' ? '≥' : '≤';
  const bound = target.on === 'ratio' ? `${sign} ${target.bound.toFixed(1)}x` : `${sign} ${target.bound} KiB`;
  const value = target.on === 'ratio' ? ratioToSsh(figure, path) : figure?.portal[path];
  if (value === undefined || Number.isNaN(value)) return `${bound} not measured`;
  const met = spec.better === 'higher' ? value >= target.bound : value <= target.bound;
  return `${bound} ${met ? 'met' : 'NOT met'}`;
}

/** The table as lines: figure | direct (no tunnel) | ssh -L | portal per path | ratio per path | target per path. */
export function table(figures: Figures, paths: readonly PathName[]): string[] {
  const header = [
    'figure',
    'direct (no tunnel)',
    'ssh -L',
    ...paths.map((path) => `portal ${path}`),
    ...paths.map((path) => `${path} ÷ ssh`),
    ...paths.map((path) => `target ${path}`),
  ];
  const body = rows.map((spec) => {
    const figure = figures[spec.key];
    return [
      spec.label,
      shown(figure?.none, spec.digits),
      shown(figure?.ssh, spec.digits),
      ...paths.map((path) => shown(figure?.portal[path], spec.digits)),
      ...paths.map((path) => {
        const value = spec.ratio === false ? undefined : ratioToSsh(figure, path);
        return value === undefined ? '—' : `${value.toFixed(2)}x`;
      }),
      ...paths.map((path) => verdict(spec, figure, path)),
    ];
  });
  return aligned(header, body);
}

/**
 * The runtime floor beside each path: the figures through bare Node.js proxies, as many processes as
 * the path has, and their ratios to ssh -L; only the rows measured through a floor.
 */
export function floorTable(figures: Figures, paths: readonly PathName[]): string[] {
  const measured = rows.filter(
    (spec) => spec.ratio !== false && paths.some((path) => figures[spec.key]?.floor[path] !== undefined),
  );
  if (measured.length === 0) return [];
  const header = [
    'figure',
    'ssh -L',
    ...paths.flatMap((path) => [`${path}: Node.js floor`, `floor ÷ ssh`, `portal ${path}`]),
  ];
  const body = measured.map((spec) => {
    const figure = figures[spec.key];
    return [
      spec.label,
      shown(figure?.ssh, spec.digits),
      ...paths.flatMap((path) => {
        const ratio = ratioToSsh(figure, path, 'floor');
        return [
          shown(figure?.floor[path], spec.digits),
          ratio === undefined ? '—' : `${ratio.toFixed(2)}x`,
          shown(figure?.portal[path], spec.digits),
        ];
      }),
    ];
  });
  return aligned(header, body);
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
