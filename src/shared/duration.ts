/**
 * Durations as people write them: 10h, 30m, 45s, 500ms, 7d, or combinations such as 1h30m. Each use
 * has its own bounds; one reading and one wording serve every caller, so a flag, a variable and a
 * manifest key refuse the same mistake with the same words.
 */
const second = 1000;
const minute = 60 * second;
const hour = 60 * minute;
const day = 24 * hour;

const units: Readonly<Record<string, number>> = { ms: 1, s: second, m: minute, h: hour, d: day };

/** The units, largest first, as durations are printed. */
const printed: readonly (readonly [string, number])[] = [
  ['d', day],
  ['h', hour],
  ['m', minute],
  ['s', second],
  ['ms', 1],
];

export interface DurationRange {
  /** The shortest duration accepted, in milliseconds; zero is refused whatever this says. */
  readonly minMs: number;
  /** The longest duration accepted, in milliseconds. */
  readonly maxMs: number;
  /** Two typical values, for help texts and messages. */
  readonly examples: string;
}

/** The bounds of every duration an operator gives Portal. */
export const durationRanges = {
  /**
   * A ticket's lifetime (portal project ticket --expires-in, a manifest's expires-in): a ticket is
   * handed to a node within days; one that lives for months is a credential left lying around.
   */
  ticket: { minMs: 1, maxMs: 30 * day, examples: '10h or 1h30m' },
  /**
   * Node certificates (portal controller start --credential-lifetime): nodes renew at half of it, so
   * below 2s renewals would run back to back; past 30 days a stolen certificate stays good too long.
   */
  credential: { minMs: 2 * second, maxMs: 30 * day, examples: '1h or 12h' },
  /**
   * PORTAL_HEARTBEAT: a ping must be answered within it, so below 500ms a slow link drops sessions
   * that are fine; twice it in silence ends a session, so past 5m a dead peer goes unnoticed for ten.
   */
  heartbeat: { minMs: 500, maxMs: 5 * minute, examples: '5s or 1m30s' },
  /**
   * PORTAL_DRAIN_TIMEOUT: how long a stopping process lets its connections finish (0s: none). A
   * service manager waits that long for a stop, so past 10m a stop looks like a hang.
   */
  drain: { minMs: 1, maxMs: 10 * minute, examples: '10s or 1m' },
  /**
   * A node's or relay's revocation-max-age: how old its list of revoked members may grow (the
   * controller away) before it opens no new session. Below 1s a heartbeat's hiccup would stop it; past
   * 30 days no certificate lives that long anyway.
   */
  revocationAge: { minMs: second, maxMs: 30 * day, examples: '5m or 1h' },
  /** portal project audit --since: how far back to read the trail (ten years covers any store). */
  auditSince: { minMs: 1, maxMs: 3650 * day, examples: '1h or 7d' },
} as const satisfies Record<string, DurationRange>;

export type DurationReading =
  { readonly ok: true; readonly ms: number } | { readonly ok: false; readonly reason: string };

/**
 * `text` read as a duration within `range`, or why not, worded to follow the text itself: "has no
 * unit", "must be positive", "is longer than 30d".
 */
export function readDuration(text: string, range: DurationRange): DurationReading {
  const reason = syntaxProblem(text);
  if (reason !== undefined) return { ok: false, reason };
  let ms = 0;
  for (const [, amount, unit] of text.matchAll(/([0-9]+)([a-z]+)/g))
    ms += Number(amount) * (units[unit as string] as number);
  const outOfRange = rangeProblem(ms, range);
  return outOfRange === undefined ? { ok: true, ms } : { ok: false, reason: outOfRange };
}

/** Why `ms` (a number from elsewhere: a request, a default) is not a duration within `range`, if it is not. */
export function rangeProblem(ms: number, range: DurationRange): string | undefined {
  if (Number.isNaN(ms) || ms < 0 || (Number.isFinite(ms) && !Number.isInteger(ms)))
    return 'is not a whole number of milliseconds';
  if (ms === 0) return 'must be positive';
  if (ms < range.minMs) return `is shorter than ${formatDuration(range.minMs)}`;
  if (ms > range.maxMs) return `is longer than ${formatDuration(range.maxMs)}`;
  return undefined;
}

/** What a duration of `range` is, for --help and for the hint of an error: the units and the bounds. */
export function durationSyntax(range: DurationRange): string {
  const bounds =
    range.minMs > 1
      ? `from ${formatDuration(range.minMs)} to ${formatDuration(range.maxMs)}`
      : `at most ${formatDuration(range.maxMs)}`;
  return `a whole number followed by ms, s, m, h or d (such as ${range.examples}), ${bounds}`;
}

/** `ms` in the largest unit that writes it whole: 30d, 2s, 500ms. */
export function formatDuration(ms: number): string {
  const [unit, size] = printed.find(([, size]) => ms % size === 0) ?? ['ms', 1];
  return `${ms / size}${unit}`;
}

function syntaxProblem(text: string): string | undefined {
  if (text === '') return 'is empty';
  if (/^([0-9]+(ms|s|m|h|d))+$/.test(text)) return undefined;
  if (/^[0-9]+$/.test(text)) return 'has no unit';
  const unknown = /^([0-9]+[A-Za-z]+)+$/.test(text)
    ? [...text.matchAll(/[0-9]+([A-Za-z]+)/g)]
        .map(([, unit]) => unit)
        .find((unit) => !Object.hasOwn(units, unit as string))
    : undefined;
  return unknown === undefined ? 'is not a duration' : `has an unknown unit "${unknown}"`;
}
