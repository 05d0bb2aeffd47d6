/**
 * The audit trail in the controller's store: records appended, never changed, each carrying the hash
 * of the one before it in its project (src/shared/audit-chain.ts). Appends are serialised in this
 * process, several records to a transaction; a record a reporter sends again (same reporter, same id)
 * is recognised and not written twice. Nothing here updates or deletes a row.
 */
import { randomBytes } from 'node:crypto';
import { canonicalJson, canonicalRecordHash, genesisHash } from '../shared/audit-chain.ts';
import {
  auditLimits,
  controllerWitness,
  type AuditDetails,
  type AuditQuery,
  type AuditRecordWire,
  type ControllerEventKind,
} from '../wire/protocol/audit.ts';
import type { Store } from './store/open.ts';

/** One event to append. */
export interface AuditEntry {
  readonly event: string;
  readonly seenBy: string;
  readonly reportId: string;
  readonly time: number;
  readonly members: readonly string[];
  readonly details: AuditDetails;
}

export interface AuditTrailOptions {
  /** Told when a record could not be written (the event it records has happened anyway). */
  readonly log?: (line: string) => void;
  /** @default Date.now */
  readonly now?: () => number;
  /** Told of each batch appended (the controller's metrics). */
  readonly onWritten?: (count: number) => void;
}

/**
 * Records read or inserted by one statement. The ids a statement looks up are padded to this many, so
 * that its SQL text is always the same (the store prepares each text once: see store/sqlite.ts).
 */
const appendChunk = 50;

function chunksOf<T>(items: readonly T[], size: number): T[][] {
  const chunks: T[][] = [];
  for (let index = 0; index < items.length; index += size) chunks.push(items.slice(index, index + size));
  return chunks;
}

/** `ids` padded with '' (no report id is empty) to appendChunk. */
const padded = (ids: readonly string[]) => [...ids, ...Array<string>(appendChunk - ids.length).fill('')];

/** How many times an append is tried again when another writer took the same place in the chain. */
const appendAttempts = 3;

/**
 * Refusals anyone may cause (a guessed ticket secret, a re-issue with a stranger's key) are counted in
 * memory and recorded once per window with their count, so that a flood costs a map entry per attempt
 * rather than a write; at most `keys` distinct refusals a window, the rest counted in the last one.
 */
export const refusalTally = { windowMs: 5000, keys: 256 } as const;

interface Tallied {
  readonly projectId: string;
  readonly event: ControllerEventKind | 'refused';
  readonly members: readonly string[];
  readonly details: AuditDetails;
  readonly first: number;
  count: number;
}

export class AuditTrail {
  /** Appends in this process, one after another, so that each reads the head it extends. */
  private tail: Promise<unknown> = Promise.resolve();
  private written = 0;
  private tallied = new Map<string, Tallied>();
  private tallyTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly store: Store,
    private readonly options: AuditTrailOptions = {},
  ) {}

  /** Records appended since the controller started. */
  get recordsWritten(): number {
    return this.written;
  }

  /**
   * Appends an event the controller saw itself. Never throws: a failure is logged, and the event it
   * records has happened anyway.
   */
  async record(
    projectId: string,
    event: ControllerEventKind | 'refused' | 'reports-dropped',
    members: readonly string[],
    details: AuditDetails = {},
  ): Promise<void> {
    const entry = {
      event,
      seenBy: controllerWitness,
      reportId: randomBytes(12).toString('base64url'),
      time: this.now(),
      members,
      details,
    };
    await this.append(projectId, [entry]).catch((error: Error) =>
      this.options.log?.(`controller: the audit record of ${event} was not written: ${error.message}`),
    );
  }

  /**
   * Counts a refusal that anyone may cause; recorded within refusalTally.windowMs, with `count` and
   * `first_at` added to its details.
   */
  tally(
    projectId: string,
    event: ControllerEventKind | 'refused',
    members: readonly string[],
    details: AuditDetails,
  ): void {
    const key = canonicalJson([projectId, event, members, details]);
    const known = this.tallied.get(key);
    if (known) known.count += 1;
    else if (this.tallied.size < refusalTally.keys)
      this.tallied.set(key, { projectId, event, members, details, first: this.now(), count: 1 });
    else [...this.tallied.values()].at(-1)!.count += 1;
    this.tallyTimer ??= setTimeout(() => void this.flushTallies(), refusalTally.windowMs).unref();
  }

  /** Records the refusals counted so far (at the end of a window, and when the controller stops). */
  async flushTallies(): Promise<void> {
    clearTimeout(this.tallyTimer);
    this.tallyTimer = undefined;
    const tallied = [...this.tallied.values()];
    this.tallied = new Map();
    for (const { projectId, event, members, details, first, count } of tallied)
      await this.record(projectId, event, members, { ...details, count, first_at: new Date(first).toISOString() });
  }

  /** Appends `entries` to the project's chain, leaving out those written before; how many were written. */
  append(projectId: string, entries: readonly AuditEntry[]): Promise<number> {
    const run = this.tail.then(() => this.appendNow(projectId, entries));
    this.tail = run.catch(() => undefined);
    return run;
  }

  private async appendNow(projectId: string, entries: readonly AuditEntry[], attempt = 1): Promise<number> {
    try {
      const count = await this.store.transaction().execute(async (trx) => {
        const head = await trx
          .selectFrom('audit_records')
          .select(['seq', 'hash'])
          .where('project_id', '=', projectId)
          .orderBy('seq', 'desc')
          .limit(1)
          .executeTakeFirst();
        const written = new Set<string>();
        for (const chunk of chunksOf(entries, appendChunk)) {
          const rows = await trx
            .selectFrom('audit_records')
            .select(['seen_by', 'report_id'])
            .where('project_id', '=', projectId)
            .where('report_id', 'in', padded(chunk.map((entry) => entry.reportId)))
            .execute();
          for (const row of rows) written.add(`${row.seen_by}\n${row.report_id}`);
        }
        let seq = Number(head?.seq ?? 0);
        let prev = head?.hash ?? genesisHash;
        const recorded = this.now();
        const rows = [];
        for (const entry of entries) {
          const key = `${entry.seenBy}\n${entry.reportId}`;
          if (written.has(key)) continue;
          written.add(key);
          seq += 1;
          const record = {
            project: projectId,
            seq,
            time: entry.time,
            recorded,
            event: entry.event,
            seenBy: entry.seenBy,
            reportId: entry.reportId,
            members: canonicalJson(entry.members),
            details: canonicalJson(entry.details),
            prev,
          };
          const hash = canonicalRecordHash(record);
          rows.push({
            project_id: projectId,
            seq,
            occurred_at: record.time,
            recorded_at: recorded,
            event: record.event,
            seen_by: record.seenBy,
            report_id: record.reportId,
            members: record.members,
            details: record.details,
            prev_hash: prev,
            hash,
          });
          prev = hash;
        }
        for (const chunk of chunksOf(rows, appendChunk)) await trx.insertInto('audit_records').values(chunk).execute();
        return rows.length;
      });
      this.written += count;
      this.options.onWritten?.(count);
      return count;
    } catch (error) {
      // Another controller on the same store took the place: read the head again.
      if (attempt < appendAttempts && /unique|duplicate/i.test((error as Error).message))
        return this.appendNow(projectId, entries, attempt + 1);
      throw error;
    }
  }

  /** Records of the project after `query.afterSeq`, oldest first, as `query` filters them. */
  async query(projectId: string, query: AuditQuery): Promise<{ records: AuditRecordWire[]; head: number }> {
    let select = this.store
      .selectFrom('audit_records')
      .selectAll()
      .where('project_id', '=', projectId)
      .where('seq', '>', Number.isFinite(query.afterSeq) ? Math.max(0, Math.floor(query.afterSeq)) : 0);
    // By the controller's clock: a reporter's own time could hide a record from a review.
    if (Number.isFinite(query.since) && query.since > 0) select = select.where('recorded_at', '>=', query.since);
    if (query.event) select = select.where('event', '=', query.event);
    const member = query.member;
    if (member)
      select = select.where((eb) => eb.or([eb('seen_by', '=', member), eb('members', 'like', `%"${member}"%`)]));
    const limit =
      Number.isFinite(query.limit) && query.limit > 0
        ? Math.min(Math.floor(query.limit), auditLimits.pageRecords)
        : auditLimits.pageRecords;
    const rows = await select.orderBy('seq', 'asc').limit(limit).execute();
    const head = await this.store
      .selectFrom('audit_records')
      .select((eb) => eb.fn.max('seq').as('seq'))
      .where('project_id', '=', projectId)
      .executeTakeFirst();
    return {
      records: rows.map((row) => ({
        project: row.project_id,
        seq: Number(row.seq),
        time: Number(row.occurred_at),
        recorded: Number(row.recorded_at),
        event: row.event,
        seenBy: row.seen_by,
        reportId: row.report_id,
        members: row.members,
        details: row.details,
        prev: row.prev_hash,
        hash: row.hash,
      })),
      head: Number(head?.seq ?? 0),
    };
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }
}
