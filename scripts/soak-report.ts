/**
 * The soak's closing table and its targets on memory and on the real clients, as lines and failures:
 * pure, so that scripts/soak.ts only measures and prints.
 */
import type { ClientLoad, Usage } from '../test/support/attackers.ts';

/** One attack's figures: the real clients of `app` and `other` meanwhile, each process's peak, the attack's own. */
export interface AttackRow {
  readonly name: string;
  readonly clients: ClientLoad;
  readonly other: ClientLoad;
  readonly peaks: Record<string, Usage>;
  readonly detail: string;
}

export interface SoakFigures {
  readonly rows: readonly AttackRow[];
  /** The real clients of `app` and `other` before any attack. */
  readonly quiet: ClientLoad;
  readonly otherQuiet: ClientLoad;
  /** Every process watched during the attacks, by name, in the table's order. */
  readonly names: readonly string[];
  /** The processes that live through the whole soak: their memory must come back. */
  readonly lasting: readonly string[];
  readonly before: Record<string, Usage>;
  readonly after: Record<string, Usage>;
  readonly alive: Record<string, boolean>;
  readonly restSeconds: number;
}

/** Beyond this ratio of its baseline resident memory after the rest, a lasting process missed its target. */
const memoryComesBack = 1.1;

export function soakReport(figures: SoakFigures): { readonly lines: string[]; readonly failures: string[] } {
  const { rows, quiet, otherQuiet, names, restSeconds } = figures;
  const lines: string[] = [];
  const failures: string[] = [];
  const widths = [30, 8, 7, 8, 7, ...names.map(() => 16)];
  lines.push(
    '',
    `real clients before the attacks: app ${quiet.attempts} round trips, ${quiet.errors} errors, ` +
      `p99 ${quiet.p99Ms} ms; other ${otherQuiet.attempts} round trips, ${otherQuiet.errors} errors`,
    '',
    pad(['attack', 'clients', 'errors', 'p99 ms', 'other', ...names], widths),
    pad(['', '(app)', '(app)', '(app)', 'errors', ...names.map(() => 'RSS MB / fds')], widths),
  );
  for (const row of rows) {
    const peaks = names.map((name) => `${row.peaks[name]?.rssMb} / ${row.peaks[name]?.fds}`);
    const cells = [row.name, row.clients.attempts, row.clients.errors, row.clients.p99Ms, row.other.errors];
    lines.push(pad([...cells.map(String), ...peaks], widths), `    ${row.detail}`);
  }
  lines.push('');
  for (const name of figures.lasting) {
    const start = figures.before[name] as Usage;
    const end = figures.after[name] as Usage;
    const ratio = end.rssMb / start.rssMb;
    const alive = figures.alive[name] === true;
    lines.push(
      `${name.padEnd(13)} RSS ${start.rssMb} MB before, ` +
        `${end.rssMb} MB ${restSeconds} s after (${((ratio - 1) * 100).toFixed(1)} %); fds ${start.fds} before, ` +
        `${end.fds} after; ${alive ? 'alive' : 'DIED'}`,
    );
    if (!alive) failures.push(`${name} died`);
    if (ratio > memoryComesBack)
      failures.push(`${name} holds ${((ratio - 1) * 100).toFixed(1)} % more memory than before`);
  }
  for (const row of rows) {
    if (row.clients.errors > 0)
      failures.push(
        `app's real clients saw ${row.clients.errors} errors during attack ${row.name} ` +
          `(${JSON.stringify(row.clients.errorKinds)})`,
      );
    if (row.other.errors > 0)
      failures.push(
        `other's real clients saw ${row.other.errors} errors during attack ${row.name} ` +
          `(${JSON.stringify(row.other.errorKinds)})`,
      );
  }
  return { lines, failures };
}

function pad(cells: string[], widths: number[]): string {
  return cells.map((cell, i) => cell.padEnd(widths[i] ?? 10)).join(' ');
}
