/**
 * Where a node or relay keeps the audit records it has not handed to the controller yet: in memory and
 * in a JSON-lines file beside its identity, bounded, so that records made while the controller is away
 * survive until it is back (and a restart). Nothing here runs on the data path: record() only appends
 * to an array; the file is written in batches, off a timer, one write at a time.
 *
 * The file is appended to as records come, and written again only once the controller took at least
 * half of what it holds (or all of it): a crash in between sends some records twice, and the
 * controller, which knows each record by its reporter and id, writes them once.
 *
 * Past the bound new records are not kept but counted; once there is room again one `reports-dropped`
 * record says how many were lost and when, so the loss is itself in the trail.
 *
 * The controller takes a batch as far as this member's audit budget goes and says when to send the
 * rest: those records stay here (counted against the bound like any other) and go no sooner.
 */
import { randomBytes } from 'node:crypto';
import { appendFile, readFile, rename, writeFile } from 'node:fs/promises';
import type { ControllerOperations } from '../wire/protocol.ts';
import { auditLimits, type AuditDetails, type AuditReport, type ReportedEventKind } from '../wire/protocol/audit.ts';
import { auditOutboxLimits } from './limits.ts';
import type { Logger } from './logger.ts';
import type { StandingChannel } from './standing-channel.ts';

export interface AuditOutboxOptions {
  /** The JSON-lines file the records wait in. */
  readonly file: string;
  readonly control: StandingChannel<ControllerOperations>;
  readonly logger: Logger;
  /** Records kept at most. @default auditOutboxLimits.records */
  readonly maxRecords?: number;
  /** Bytes of the file at most. @default auditOutboxLimits.bytes */
  readonly maxBytes?: number;
  /** How long a new record waits to be written out and sent with others. @default auditOutboxLimits.flushMs */
  readonly flushMs?: number;
}

/**
 * A record's id: random per process, then a count, so that ids never repeat across runs and making
 * one costs no call to the random source on the data path's account.
 */
const idPrefix = randomBytes(9).toString('base64url');
let idCount = 0;
const nextId = () => `${idPrefix}${(idCount++).toString(36)}`;

interface Pending {
  readonly report: AuditReport;
  readonly line: string;
  journaled: boolean;
}

export class AuditOutbox {
  private pending: Pending[] = [];
  private bytes = 0;
  /** Records taken by the controller since the file was last written whole. */
  private takenSinceRewrite = 0;
  private dropped = { count: 0, first: 0, last: 0 };
  private timer: NodeJS.Timeout | undefined;
  private disk: Promise<void> = Promise.resolve();
  private sending = false;
  /** When the controller said the records it did not take may be sent again (Date.now() ms). */
  private sendAfter = 0;
  private stopped = false;
  private readonly maxRecords: number;
  private readonly maxBytes: number;
  private readonly onUp = () => this.schedule(0);

  constructor(private readonly options: AuditOutboxOptions) {
    this.maxRecords = options.maxRecords ?? auditOutboxLimits.records;
    this.maxBytes = options.maxBytes ?? auditOutboxLimits.bytes;
  }

  /** Reads what an earlier run left unsent, and sends whenever the controller is connected. */
  async start(): Promise<void> {
    const text = await readFile(this.options.file, 'utf8').catch(() => '');
    for (const line of text.split('\n')) {
      const report = reportOf(line);
      if (report && !this.full(line)) this.keep(report, line, true);
    }
    this.options.control.on('up', this.onUp);
    if (this.pending.length > 0) this.schedule(0);
  }

  /** Records one event: kept (or counted, past the bound) and sent within flushMs. */
  record(event: ReportedEventKind, members: readonly string[], details: AuditDetails, time = Date.now()): void {
    if (this.stopped) return;
    const report: AuditReport = {
      id: nextId(),
      event,
      time,
      members: members.slice(0, auditLimits.members),
      details: JSON.stringify(details),
    };
    const line = JSON.stringify(report);
    // One place stays free for the record that tells of the loss.
    if (this.full(line, 1)) {
      if (this.dropped.count === 0) this.dropped.first = time;
      this.dropped.count += 1;
      this.dropped.last = time;
      return;
    }
    this.keep(report, line, false);
    this.schedule(this.options.flushMs ?? auditOutboxLimits.flushMs);
  }

  /** Records waiting, and records lost to the bound and not yet told. */
  stats(): { readonly pending: number; readonly dropped: number } {
    return { pending: this.pending.length, dropped: this.dropped.count };
  }

  /** Writes out what is waiting and stops; what the controller has not taken is sent by the next run. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.options.control.off('up', this.onUp);
    await this.writeOut();
  }

  private full(line: string, reserve = 0): boolean {
    return this.pending.length + reserve >= this.maxRecords || this.bytes + line.length + 1 > this.maxBytes;
  }

  private keep(report: AuditReport, line: string, journaled: boolean): void {
    this.pending.push({ report, line, journaled });
    this.bytes += line.length + 1;
  }

  private schedule(delayMs: number): void {
    if (this.stopped || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, delayMs);
    this.timer.unref();
  }

  private async flush(): Promise<void> {
    this.tellLoss();
    await this.writeOut();
    await this.send();
  }

  /** Once there is room again, one record of how many were lost. */
  private tellLoss(): void {
    if (this.dropped.count === 0 || this.pending.length >= this.maxRecords) return;
    const { count, first, last } = this.dropped;
    this.dropped = { count: 0, first: 0, last: 0 };
    const report: AuditReport = {
      id: nextId(),
      event: 'reports-dropped',
      time: last,
      members: [],
      details: JSON.stringify({
        count,
        first_at: new Date(first).toISOString(),
        last_at: new Date(last).toISOString(),
        bound_records: this.maxRecords,
        bound_bytes: this.maxBytes,
      }),
    };
    this.keep(report, JSON.stringify(report), false);
    this.options.logger.warn(
      `audit: ${count} records were lost while the controller was away (at most ${this.maxRecords} are kept)`,
    );
  }

  /** Appends the records not yet in the file, or writes it whole once the controller took enough. */
  private writeOut(): Promise<void> {
    const run = this.disk.then(async () => {
      const rewrite = this.takenSinceRewrite > 0 && this.takenSinceRewrite >= this.pending.length;
      if (rewrite) {
        const snapshot = [...this.pending];
        const temporary = `${this.options.file}.tmp`;
        await writeFile(temporary, snapshot.map((entry) => `${entry.line}\n`).join(''), { mode: 0o600 });
        await rename(temporary, this.options.file);
        snapshot.forEach((entry) => (entry.journaled = true));
        this.takenSinceRewrite = 0;
        return;
      }
      const fresh = this.pending.filter((entry) => !entry.journaled);
      if (fresh.length === 0) return;
      await appendFile(this.options.file, fresh.map((entry) => `${entry.line}\n`).join(''), { mode: 0o600 });
      fresh.forEach((entry) => (entry.journaled = true));
    });
    this.disk = run.catch((error: Error) => this.options.logger.warn(`audit: ${this.options.file}: ${error.message}`));
    return this.disk;
  }

  /** Hands the oldest records to the controller while it is connected, a batch at a time. */
  private async send(): Promise<void> {
    const { control, logger } = this.options;
    if (this.sending) return;
    // Told to wait: a batch sent sooner would be refused whole, and counted as dropped.
    const waitMs = this.sendAfter - Date.now();
    if (waitMs > 0) {
      this.schedule(waitMs);
      return;
    }
    this.sending = true;
    try {
      // A batch now, then more only while full ones wait (a backlog): records that came in meanwhile
      // go with the next flush, so that a steady trickle still travels in batches.
      let more = this.pending.length > 0;
      let retryAfterMs = 0;
      while (more && control.connected && !this.stopped) {
        const sent = this.pending.slice(0, auditLimits.reportRecords);
        const answer = await control.request('audit-report', { records: sent.map((entry) => entry.report) });
        // The controller takes a batch as far as this member's budget goes; the rest waits here.
        const batch = sent.slice(0, Math.max(0, Math.min(sent.length, Math.floor(answer.taken))));
        const taken = new Set(batch);
        this.pending = this.pending.filter((entry) => !taken.has(entry));
        this.bytes -= batch.reduce((sum, entry) => sum + entry.line.length + 1, 0);
        this.takenSinceRewrite += batch.length;
        this.tellLoss();
        retryAfterMs = batch.length < sent.length ? boundedRetry(answer.retryAfterMs) : 0;
        more = retryAfterMs === 0 && this.pending.length >= auditLimits.reportRecords;
      }
      if (this.takenSinceRewrite > 0) await this.writeOut();
      if (retryAfterMs > 0) {
        this.sendAfter = Date.now() + retryAfterMs;
        logger.debug(`audit: the controller takes the rest in ${retryAfterMs} ms`);
      }
      if (this.pending.length > 0)
        this.schedule(Math.max(retryAfterMs, this.options.flushMs ?? auditOutboxLimits.flushMs));
    } catch (error) {
      logger.debug(`audit: the controller did not take the records yet: ${(error as Error).message}`);
      // Connected but refused (a timeout, say): again in a while; a lost connection waits for 'up'.
      if (control.connected) this.schedule(auditOutboxLimits.retryMs);
    } finally {
      this.sending = false;
    }
  }
}

/** The controller's word on when to send again, within reason: a wrong figure neither floods nor stalls. */
const boundedRetry = (ms: number) =>
  Number.isFinite(ms)
    ? Math.min(Math.max(ms, auditOutboxLimits.flushMs), auditOutboxLimits.maxRetryMs)
    : auditOutboxLimits.retryMs;

/** A line of the file read back; undefined when it is no report (a torn last line, say). */
function reportOf(line: string): AuditReport | undefined {
  if (line === '') return undefined;
  try {
    const value = JSON.parse(line) as Partial<AuditReport>;
    if (
      typeof value.id === 'string' &&
      typeof value.event === 'string' &&
      typeof value.time === 'number' &&
      Array.isArray(value.members) &&
      typeof value.details === 'string'
    )
      return value as AuditReport;
  } catch {
    // Left out.
  }
  return undefined;
}
