/**
 * A warning that may come thousands of times a second (a target that refuses, descriptors running
 * out, a member pushing past a bound) is logged the first time and then once per interval for each
 * key, with how many times it happened meanwhile.
 */
import { throttledWarningMs, warningKeysKept } from './limits.ts';

export class LogThrottle {
  private readonly seen = new Map<string, { count: number; loggedAt: number }>();

  constructor(
    private readonly log: (line: string) => void,
    private readonly intervalMs = throttledWarningMs,
    /** Keys remembered at once; quiet ones are forgotten first, so a parade of keys cannot grow this without bound. */
    private readonly maxKeys = warningKeysKept,
  ) {}

  /** Counts one occurrence of `key`; `line(count)` is logged when it is due, with the count since the last line. */
  note(key: string, line: (count: number) => string, now = Date.now()): void {
    const entry = this.seen.get(key) ?? { count: 0, loggedAt: -Infinity };
    entry.count += 1;
    if (now - entry.loggedAt >= this.intervalMs) {
      this.log(line(entry.count));
      entry.count = 0;
      entry.loggedAt = now;
    }
    this.seen.set(key, entry);
    if (this.seen.size > this.maxKeys) {
      for (const [stale, quiet] of this.seen)
        if (now - quiet.loggedAt >= this.intervalMs && quiet.count === 0) this.seen.delete(stale);
    }
  }
}
