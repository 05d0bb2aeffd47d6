/**
 * How much of a member's audit reports the controller writes: token buckets of records and bytes per
 * member, and one shared by all members (see auditBudget). A batch is taken as far as the buckets go,
 * oldest first; what is left is not taken, and the member is told when to send it again. A batch that
 * arrives before then is refused whole, without being read: that is the flood, and only that is
 * counted as dropped, so a reporter that waits as it is told never loses a record to the budget. Pure:
 * the clock is a parameter.
 */
import { auditBudget } from './limits.ts';

export interface BucketFigures {
  readonly perSecond: number;
  readonly burst: number;
}

export interface BudgetFigures {
  readonly member: { readonly records: BucketFigures; readonly bytes: BucketFigures };
  readonly total: { readonly records: BucketFigures; readonly bytes: BucketFigures };
  readonly keys: number;
}

/** What the budget made of one batch. */
export interface Admission {
  /** How many of the batch's records, from its start, may be written. */
  readonly taken: number;
  /** When the rest may be sent again, in ms from now (0 when all were taken). */
  readonly retryAfterMs: number;
  /** Whether the batch came while its member was told to wait: refused whole, and counted as dropped. */
  readonly early: boolean;
}

interface Bucket {
  records: number;
  bytes: number;
  at: number;
}

interface MemberState extends Bucket {
  /** Until when the member was told to wait (ms of the budget's clock). */
  waitUntil: number;
}

export class ReportBudget {
  private readonly members = new Map<string, MemberState>();
  private readonly total: Bucket;

  constructor(
    private readonly figures: BudgetFigures = auditBudget,
    now = 0,
  ) {
    this.total = { records: figures.total.records.burst, bytes: figures.total.bytes.burst, at: now };
  }

  /** Whether `member` was told to wait past `now`: its batch is refused before it is read. */
  waiting(member: string, now: number): number {
    const state = this.members.get(member);
    return state && state.waitUntil > now ? state.waitUntil - now : 0;
  }

  /** Takes what fits of a batch whose records have `sizes` (bytes each), from the start. */
  admit(member: string, sizes: readonly number[], now: number): Admission {
    const wait = this.waiting(member, now);
    if (wait > 0) return { taken: 0, retryAfterMs: wait, early: true };
    const { figures } = this;
    const state = this.stateOf(member, now);
    refill(state, figures.member, now);
    refill(this.total, figures.total, now);
    let taken = 0;
    for (const size of sizes) {
      if (!fits(state, size) || !fits(this.total, size)) break;
      spend(state, size);
      spend(this.total, size);
      taken += 1;
    }
    if (taken === sizes.length) return { taken, retryAfterMs: 0, early: false };
    // Long enough for the rest to fit, as far as a full bucket can hold it.
    const rest = sizes.slice(taken);
    const need = { records: rest.length, bytes: rest.reduce((sum, size) => sum + size, 0) };
    const retryAfterMs = Math.ceil(
      Math.max(refillMs(state, figures.member, need), refillMs(this.total, figures.total, need)),
    );
    state.waitUntil = now + retryAfterMs;
    return { taken, retryAfterMs, early: false };
  }

  private stateOf(member: string, now: number): MemberState {
    this.forget(now);
    const known = this.members.get(member);
    // Re-inserted so that the map's order is the order of last use.
    this.members.delete(member);
    const { records, bytes } = this.figures.member;
    const state = known ?? { records: records.burst, bytes: bytes.burst, at: now, waitUntil: 0 };
    this.members.set(member, state);
    return state;
  }

  /** Forgets members whose buckets are full again (a new one is the same), and the stalest past `keys`. */
  private forget(now: number): void {
    const { records, bytes } = this.figures.member;
    const fullAfterMs = Math.max(records.burst / records.perSecond, bytes.burst / bytes.perSecond) * 1000;
    for (const [member, state] of this.members) {
      const full = now - state.at >= fullAfterMs && state.waitUntil <= now;
      if (!full && this.members.size < this.figures.keys) break;
      this.members.delete(member);
    }
  }
}

function refill(bucket: Bucket, figures: BudgetFigures['member'], now: number): void {
  const seconds = Math.max(0, now - bucket.at) / 1000;
  bucket.records = Math.min(figures.records.burst, bucket.records + seconds * figures.records.perSecond);
  bucket.bytes = Math.min(figures.bytes.burst, bucket.bytes + seconds * figures.bytes.perSecond);
  bucket.at = now;
}

const fits = (bucket: Bucket, size: number) => bucket.records >= 1 && bucket.bytes >= size;

function spend(bucket: Bucket, size: number): void {
  bucket.records -= 1;
  bucket.bytes -= size;
}

/** How long until `bucket` holds `need` (capped at its burst, which it always reaches). */
function refillMs(
  bucket: Bucket,
  figures: BudgetFigures['member'],
  need: { readonly records: number; readonly bytes: number },
): number {
  const records = Math.min(need.records, figures.records.burst) - bucket.records;
  const bytes = Math.min(need.bytes, figures.bytes.burst) - bucket.bytes;
  return Math.max(0, (records / figures.records.perSecond) * 1000, (bytes / figures.bytes.perSecond) * 1000);
}
