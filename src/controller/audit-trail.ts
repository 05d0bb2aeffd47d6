/**
 * The audit trail in the controller's store: records appended, never changed, each carrying the hash
 * of the one before it in its project (src/shared/audit-chain.ts), the last of each append signed by
 * the controller's trail key (src/shared/audit-signature.ts). Appends are serialised in this process,
 * several records to a transaction; a record a reporter sends again (same reporter, same id) is
 * recognised and not written twice. Nothing here updates or deletes a row.
 */
import { randomBytes } from 'node:crypto';
import { canonicalJson, chainEncodingVersion, genesisHash, recordHash } from '../shared/audit-chain.ts';
import type { AuditSigner } from '../shared/audit-signature.ts';
import type { ChainCursor } from '../shared/audit-verify.ts';
import {
  auditLimits,
  controllerWitness,
  type AuditDetails,
  type AuditPage,
  type AuditQuery,
  type AuditRecordWire,
  type ControllerEventKind,
} from '../wire/protocol/audit.ts';
import { storeEngine, type Store } from './store/open.ts';
import type { Insertable, Selectable } from 'kysely';
import type { AuditRecordTable } from './store/schema.ts';

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
  /**
   * Signs the last record of each append (the controller's trail key). Without one, records are
   * written in the unsigned encoding 1, as before signatures.
   */
  readonly signer?: AuditSigner;
}

/**
 * Records read or inserted by one statement. The ids a statement looks up are padded to this many, so
 * that its SQL text is always the same (the store prepares each text once: see store/sqlite.ts).
 */
const appendChunk = 50;

/** Rows one statement of a query reads: a page is filled from a few of them. */
const queryChunk = 256;

function chunksOf<T>(items: readonly T[], size: number): T[][] {
  const chunks: T[][] = [];
  for (let index = 0; index < items.length; index += size) chunks.push(items.slice(index, index + size));
  return chunks;
}

/** `ids` padded with '' (no report id is empty) to appendChunk. */
const padded = (ids: readonly string[]) => [...ids, ...Array<string>(appendChunk - ids.length).fill('')];

/** The report ids of `entries`, by the witness that reported them. */
function reportIdsBySeenBy(entries: readonly AuditEntry[]): Map<string, string[]> {
  const ids = new Map<string, string[]>();
  for (const entry of entries) {
    const list = ids.get(entry.seenBy);
    if (list) list.push(entry.reportId);
    else ids.set(entry.seenBy, [entry.reportId]);
  }
  return ids;
}

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
  /** Per project, the batch of appends that waits for the one under way. */
  private readonly waiting = new Map<string, { entries: AuditEntry[]; written: Promise<Set<string>> }>();
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

  /**
   * Appends `entries` to the project's chain, leaving out those written before; how many were written.
   * Appends made while another is under way wait for it and then go together, one transaction for all
   * of a project's: under a burst (every node renewing) the chain's lock is taken once per batch, not
   * once per record.
   */
  append(projectId: string, entries: readonly AuditEntry[]): Promise<number> {
    let batch = this.waiting.get(projectId);
    if (!batch) {
      const gathered: AuditEntry[] = [];
      const written = this.tail.then(() => {
        this.waiting.delete(projectId);
        return this.appendNow(projectId, gathered);
      });
      batch = { entries: gathered, written };
      this.waiting.set(projectId, batch);
      this.tail = written.catch(() => undefined);
    }
    batch.entries.push(...entries);
    return batch.written.then((keys) => {
      // Each record written counts for the first append that asked for it.
      let count = 0;
      for (const entry of entries) if (keys.delete(entryKey(entry))) count += 1;
      return count;
    });
  }

  /** Appends `entries` in one transaction; the keys (entryKey) of those written. */
  private async appendNow(projectId: string, entries: readonly AuditEntry[], attempt = 1): Promise<Set<string>> {
    try {
      const keys = await this.store.transaction().execute(async (trx) => {
        // Controller replicas on one PostgreSQL append to the same chains: the project's row, locked
        // until this transaction ends, makes them take turns (SQLite has one writer at a time anyway).
        if (storeEngine(this.store) === 'postgres')
          await trx.selectFrom('projects').select('id').where('id', '=', projectId).forUpdate().execute();
        const head = await chainHead(trx, projectId);
        const written = new Set<string>();
        // Looked up by witness and id, the unique index's own columns: without the witness, each lookup
        // read every record of the project, and a long trail made each append slower than the last.
        // The controller's own records have ids of their own, drawn at random: none was written before.
        const reported = entries.filter((entry) => entry.seenBy !== controllerWitness);
        for (const [seenBy, ids] of reportIdsBySeenBy(reported))
          for (const chunk of chunksOf(ids, appendChunk)) {
            const rows = await trx
              .selectFrom('audit_records')
              .select(['seen_by', 'report_id'])
              .where('project_id', '=', projectId)
              .where('seen_by', '=', seenBy)
              .where('report_id', 'in', padded(chunk))
              .execute();
            for (const row of rows) written.add(`${row.seen_by}\n${row.report_id}`);
          }
        let seq = head.seq;
        let prev = head.hash;
        const recorded = this.now();
        const signer = this.options.signer;
        const encoding = signer ? chainEncodingVersion : 1;
        const rows: Insertable<AuditRecordTable>[] = [];
        const added = new Set<string>();
        for (const entry of entries) {
          const key = entryKey(entry);
          if (written.has(key)) continue;
          written.add(key);
          added.add(key);
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
            encoding,
          };
          const hash = recordHash(record);
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
            encoding,
            signature: null,
          });
          prev = hash;
        }
        // The last record of an append vouches for every record before it: a trail that ends on an
        // unsigned record was cut, and one rewritten by someone without the key fails its signature.
        const last = rows.at(-1);
        if (last && signer) last.signature = signer.sign(last.hash);
        for (const chunk of chunksOf(rows, appendChunk)) await trx.insertInto('audit_records').values(chunk).execute();
        return added;
      });
      this.written += keys.size;
      this.options.onWritten?.(keys.size);
      return keys;
    } catch (error) {
      // Another controller on the same store took the place: read the head again.
      if (attempt < appendAttempts && /unique|duplicate/i.test((error as Error).message))
        return this.appendNow(projectId, entries, attempt + 1);
      throw error;
    }
  }

  /**
   * Records of the project after `query.afterSeq`, oldest first, as `query` filters them: at most
   * auditLimits.pageRecords records and auditLimits.pageBytes of them, after reading at most
   * auditLimits.scanRecords rows. A member is matched on the parsed member list, never on its text.
   */
  async query(projectId: string, query: AuditQuery): Promise<AuditPage> {
    const after = Number.isFinite(query.afterSeq) ? Math.max(0, Math.floor(query.afterSeq)) : 0;
    let select = this.store.selectFrom('audit_records').selectAll().where('project_id', '=', projectId);
    // By the controller's clock: a reporter's own time could hide a record from a review.
    if (Number.isFinite(query.since) && query.since > 0) select = select.where('recorded_at', '>=', query.since);
    if (query.event) select = select.where('event', '=', query.event);
    const member = query.member;
    const limit =
      Number.isFinite(query.limit) && query.limit > 0
        ? Math.min(Math.floor(query.limit), auditLimits.pageRecords)
        : auditLimits.pageRecords;
    const records: AuditRecordWire[] = [];
    const scanBound = member ? auditLimits.scanRecords : limit;
    let bytes = 0;
    let next = after;
    let scanned = 0;
    let full = false;
    let exhausted = false;
    // Read in small chunks: a page is bounded in bytes long before it is in records.
    while (!full && !exhausted && scanned < scanBound) {
      const chunk = Math.min(queryChunk, scanBound - scanned);
      const rows = await select.where('seq', '>', next).orderBy('seq', 'asc').limit(chunk).execute();
      exhausted = rows.length < chunk;
      for (const row of rows) {
        if (records.length >= limit) {
          full = true;
          break;
        }
        if (!member || row.seen_by === member || namesMember(row.members, member)) {
          const record = wireOf(row);
          const size = Buffer.byteLength(JSON.stringify(record));
          if (records.length > 0 && bytes + size > auditLimits.pageBytes) {
            full = true;
            break;
          }
          bytes += size;
          records.push(record);
        }
        next = Number(row.seq);
        scanned += 1;
      }
    }
    return {
      records,
      head: (await chainHead(this.store, projectId)).seq,
      next,
      more: full || (!exhausted && scanned >= scanBound),
      key: this.options.signer?.publicKey ?? null,
    };
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }
}

/** Whether the members text of a record names `member` once parsed (a damaged text names nobody). */
function namesMember(members: string, member: string): boolean {
  try {
    const parsed: unknown = JSON.parse(members);
    return Array.isArray(parsed) && parsed.includes(member);
  } catch {
    return false;
  }
}

function wireOf(row: Selectable<AuditRecordTable>): AuditRecordWire {
  return {
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
    encoding: Number(row.encoding),
    signature: row.signature ?? null,
  };
}

/**
 * The last record of a project's chain, or the genesis cursor of an empty one. The last in the index's
 * order is one row read; max(seq) read every row of the project on SQLite.
 */
export async function chainHead(store: Store, projectId: string): Promise<ChainCursor> {
  const head = await store
    .selectFrom('audit_records')
    .select(['seq', 'hash'])
    .where('project_id', '=', projectId)
    .orderBy('seq', 'desc')
    .limit(1)
    .executeTakeFirst();
  return head ? { seq: Number(head.seq), hash: head.hash } : { seq: 0, hash: genesisHash };
}

/** What identifies a record in a project's chain: its witness and the id it gave it. */
const entryKey = (entry: Pick<AuditEntry, 'seenBy' | 'reportId'>): string => `${entry.seenBy}\n${entry.reportId}`;
