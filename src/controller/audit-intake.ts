/**
 * The controller's side of `audit-report`: a member's batch is checked (audit-reports.ts), taken as
 * far as its budget goes (audit-budget.ts), and appended; what was not written is counted per member
 * and recorded once per window as one `reports-dropped` record, so that neither a flood nor forged
 * records cost the trail more than a record per member per window.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { PeerIdentity } from '../pki/identity.ts';
import { auditLimits, type AuditReport } from '../wire/protocol/audit.ts';
import { ReportBudget, type BudgetFigures } from './audit-budget.ts';
import { entriesOfReports, membersNamed, reportBytes } from './audit-reports.ts';
import type { AuditEntry, AuditTrail } from './audit-trail.ts';
import { auditBudget, earlyReportHoldMs, reportsDroppedWindowMs } from './limits.ts';
import { namedMembers } from './named-members.ts';
import type { Store } from './store/open.ts';

/** What the reporter is told of its batch. */
export interface ReportAnswer {
  readonly written: number;
  /** How many records, from the batch's start, the controller took: written, known already, or invalid. */
  readonly taken: number;
  /** When to send the rest (ms); 0 when everything was taken. */
  readonly retryAfterMs: number;
  /**
   * How many of the batch's records were counted as dropped over budget: all of a batch sent while its
   * member was told to wait, else none. A batch that merely found the bucket empty is not: it was not
   * told to wait, and is told now.
   */
  readonly overBudget: number;
}

export interface ReportIntakeOptions {
  readonly store: Store;
  readonly trail: AuditTrail;
  /** @default Date.now */
  readonly now?: () => number;
  /** @default auditBudget */
  readonly budget?: BudgetFigures;
  /** @default reportsDroppedWindowMs */
  readonly windowMs?: number;
  /** @default earlyReportHoldMs */
  readonly holdMs?: number;
}

interface Dropped {
  readonly projectId: string;
  readonly member: string;
  overBudget: number;
  invalid: number;
  readonly first: number;
  last: number;
}

export class ReportIntake {
  private readonly budget: ReportBudget;
  private dropped = new Map<string, Dropped>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly options: ReportIntakeOptions) {
    this.budget = new ReportBudget(options.budget ?? auditBudget, this.now());
  }

  async report(peer: PeerIdentity, records: readonly AuditReport[]): Promise<ReportAnswer> {
    const batch = records.slice(0, auditLimits.reportRecords);
    // More than a batch may hold is no report of this protocol: the excess is not read.
    if (records.length > batch.length) this.count(peer, 'invalid', records.length - batch.length);
    const wait = this.budget.waiting(peer.nodeId, this.now());
    if (wait > 0) return this.refuseEarly(peer, batch.length, wait);
    const members = await namedMembers(this.options.store, peer.projectId, membersNamed(batch));
    const now = this.now();
    const entries = entriesOfReports({ peer, now, members }, batch);
    const valid = entries.flatMap((entry, index) => (entry ? [{ entry, index }] : []));
    const admission = this.budget.admit(
      peer.nodeId,
      valid.map(({ index }) => reportBytes(batch[index]!)),
      now,
    );
    if (admission.early) return this.refuseEarly(peer, batch.length, admission.retryAfterMs);
    // The batch is taken up to the first valid record that did not fit.
    const taken = admission.taken < valid.length ? valid[admission.taken]!.index : batch.length;
    const invalid = taken - admission.taken;
    if (invalid > 0) this.count(peer, 'invalid', invalid);
    const writing: AuditEntry[] = valid.slice(0, admission.taken).map(({ entry }) => entry);
    const written = writing.length > 0 ? await this.options.trail.append(peer.projectId, writing) : 0;
    return { written, taken, retryAfterMs: admission.retryAfterMs, overBudget: 0 };
  }

  /** Records what was counted so far (at the end of a window, and when the controller stops). */
  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const dropped = [...this.dropped.values()];
    this.dropped = new Map();
    for (const { projectId, member, overBudget, invalid, first, last } of dropped)
      await this.options.trail.record(projectId, 'reports-dropped', [member], {
        count: overBudget + invalid,
        over_budget: overBudget,
        invalid,
        first_at: new Date(first).toISOString(),
        last_at: new Date(last).toISOString(),
      });
  }

  /** Counts a batch sent too soon, and answers it late (see earlyReportHoldMs): refused whole. */
  private async refuseEarly(peer: PeerIdentity, records: number, retryAfterMs: number): Promise<ReportAnswer> {
    this.count(peer, 'overBudget', records);
    const holdMs = Math.min(retryAfterMs, this.options.holdMs ?? earlyReportHoldMs);
    await sleep(holdMs, undefined, { ref: false });
    return { written: 0, taken: 0, retryAfterMs: retryAfterMs - holdMs, overBudget: records };
  }

  private count(peer: PeerIdentity, why: 'overBudget' | 'invalid', records: number): void {
    if (records <= 0) return;
    const now = this.now();
    // One entry per member that sent something not written this window: members are enrolled, so few.
    const key = `${peer.projectId}\n${peer.nodeId}`;
    const known = this.dropped.get(key) ?? {
      projectId: peer.projectId,
      member: peer.nodeId,
      overBudget: 0,
      invalid: 0,
      first: now,
      last: now,
    };
    known[why] += records;
    known.last = now;
    this.dropped.set(key, known);
    this.timer ??= setTimeout(() => void this.flush(), this.options.windowMs ?? reportsDroppedWindowMs).unref();
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }
}
