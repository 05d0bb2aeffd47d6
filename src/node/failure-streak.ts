/**
 * Failures in a row of one kind of attempt (connections to the target, clients the outlet served),
 * since the last success: what `/show` reports as a problem while it is recent. A success ends the
 * streak, so a target that recovered stops being a problem at its first good connection.
 */
export interface StreakShow {
  /** Failures since the last success. */
  readonly count: number;
  /** Why the last one failed, in words (an errno code, a refusal). */
  readonly reason: string;
  /** When the last one failed (ISO 8601). */
  readonly last_at: string;
}

export class FailureStreak {
  private count = 0;
  private reason = '';
  private lastAt = 0;

  fail(reason: string, now = Date.now()): void {
    this.count += 1;
    this.reason = reason;
    this.lastAt = now;
  }

  succeed(): void {
    this.count = 0;
  }

  describe(): StreakShow | null {
    return this.count === 0
      ? null
      : { count: this.count, reason: this.reason, last_at: new Date(this.lastAt).toISOString() };
  }
}
