/**
 * What the operations of a project count that the processes doing them keep: revocations the
 * controller pushed to members, audit records it wrote, and audit records a process keeps until the
 * controller takes them. The part that does the work feeds the tally in one line; the registries read
 * it when scraped (portal_revocations_pushed_total, portal_audit_records_written_total,
 * portal_audit_records_pending).
 */
import type { Registry } from 'prom-client';
import { readCounter, readGauge, single } from './metric-families.ts';

export class OperationsTally {
  private pushed = 0;
  private written = 0;
  private pending: () => number = () => 0;

  /** The controller pushed a revocation to `count` connections of members. */
  revocationsPushed(count = 1): void {
    this.pushed += count;
  }

  /** `count` audit records were appended to the trail. */
  auditRecordsWritten(count = 1): void {
    this.written += count;
  }

  /** Where the count of audit records this process keeps, not yet taken into the trail, is read when scraped. */
  auditRecordsPendingFrom(read: () => number): void {
    this.pending = read;
  }

  get totals(): { readonly revocationsPushed: number; readonly auditRecordsWritten: number; readonly pending: number } {
    return { revocationsPushed: this.pushed, auditRecordsWritten: this.written, pending: this.pending() };
  }
}

/** Which of the tally's families a process serves: the controller all, a relay or a node what it keeps. */
export type TallyFamily = 'revocations' | 'written' | 'pending';

export function registerTally(registry: Registry, tally: OperationsTally, families: readonly TallyFamily[]): void {
  if (families.includes('revocations'))
    readCounter({
      registry,
      name: 'portal_revocations_pushed_total',
      help: 'Revocations the controller pushed to the connections of members and relays',
      read: () => single(tally.totals.revocationsPushed),
    });
  if (families.includes('written'))
    readCounter({
      registry,
      name: 'portal_audit_records_written_total',
      help: 'Records appended to the audit trail',
      read: () => single(tally.totals.auditRecordsWritten),
    });
  if (families.includes('pending'))
    readGauge({
      registry,
      name: 'portal_audit_records_pending',
      help: 'Audit records this process keeps until the controller takes them into the trail',
      read: () => single(tally.totals.pending),
    });
}
