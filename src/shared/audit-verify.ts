/**
 * The check of a whole audit trail, page by page, so that a trail of any length costs the memory of a
 * page: every record's hash of its stored content, every link, every seq, the controller's signature
 * of the chain, a restore's one explained gap, and a checkpoint an administrator kept. Pure: records in,
 * a break or nothing out (signatures are checked with node:crypto, no I/O).
 */
import type { KeyObject } from 'node:crypto';
import type { AuditRecordWire } from '../wire/protocol/audit.ts';
import { chainEncodings, genesisHash, recordHash } from './audit-chain.ts';
import { auditPublicKey, signatureHolds } from './audit-signature.ts';

export type ChainBreak =
  /** Its hash is not that of its content as stored: it was edited. */
  | { readonly kind: 'content'; readonly seq: number }
  /** Its prev is not the hash of the record before. */
  | { readonly kind: 'link'; readonly seq: number }
  /** Its seq does not follow, and no restore explains the gap. */
  | { readonly kind: 'gap'; readonly seq: number; readonly expected: number }
  /** Its encoding is unknown, or it is unsigned after signed records. */
  | { readonly kind: 'encoding'; readonly seq: number }
  /** The controller's trail key did not sign it: rewritten, its hashes made again, by someone without the key. */
  | { readonly kind: 'signature'; readonly seq: number; readonly after: number }
  /** The trail ends on a record that was not the last of an append: what followed it was removed. */
  | { readonly kind: 'cut'; readonly seq: number }
  /** The trail ends before the record a kept checkpoint holds. */
  | { readonly kind: 'checkpoint-cut'; readonly seq: number; readonly checkpoint: number }
  /** The record at the checkpoint's seq is another one. */
  | { readonly kind: 'checkpoint-differs'; readonly seq: number }
  /** The controller says the trail goes further than the records it gave. */
  | { readonly kind: 'missing'; readonly seq: number; readonly head: number };

/** Carries a chain's check from one record to the next. */
export interface ChainCursor {
  readonly seq: number;
  readonly hash: string;
}

export const chainStart: ChainCursor = { seq: 0, hash: genesisHash };

/** A head an administrator kept (`portal project audit --checkpoint`): a record's place, hash and signature. */
export interface AuditCheckpoint {
  readonly portal: 'audit-checkpoint';
  readonly project: string;
  readonly seq: number;
  readonly hash: string;
  /** The trail key's public half (base64url) that signed it. */
  readonly key: string;
  readonly signature: string;
  /** The record itself: its hash binds `project` and `seq` to the signature. */
  readonly record: AuditRecordWire;
}

/** A restore the trail records: the backup's head it went back to, and the head it replaced. */
export interface TrailRestore {
  /** The seq of the `restored` record. */
  readonly seq: number;
  readonly backupSeq: number;
  /** The head before the restore, null when the store was empty. */
  readonly previousSeq: number | null;
}

export interface TrailCheckOptions {
  /** The trail key's public half; without it, signatures are not checked (and a restore's gap is refused). */
  readonly key?: KeyObject;
  readonly checkpoint?: AuditCheckpoint;
  /** @default chainStart */
  readonly from?: ChainCursor;
}

interface Head {
  readonly seq: number;
  readonly hash: string;
}

const isHead = (value: unknown): value is Head =>
  typeof value === 'object' &&
  value !== null &&
  Number.isSafeInteger((value as Head).seq) &&
  (value as Head).seq >= 0 &&
  typeof (value as Head).hash === 'string' &&
  /^[0-9a-f]{64}$/.test((value as Head).hash);

/** The heads a `restored` record's details name, or undefined when they are not what the contract says. */
function restoredHeads(details: string): { backup: Head; previous: Head | null } | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(details);
  } catch {
    return undefined;
  }
  const { backupHead, previousHead } = (parsed ?? {}) as { backupHead?: unknown; previousHead?: unknown };
  if (!isHead(backupHead) || (previousHead !== null && !isHead(previousHead))) return undefined;
  return { backup: backupHead, previous: previousHead };
}

export class TrailCheck {
  /** Records checked. */
  records = 0;
  /** The first record in the signed encoding, if any. */
  signedFrom: number | undefined;
  readonly restores: TrailRestore[] = [];
  /** Whether the checkpoint's record was found, with its hash. */
  checkpointHeld = false;
  /** The restore that took the checkpoint's record away, if one did. */
  checkpointLostTo: TrailRestore | undefined;
  private at: ChainCursor;
  private last: AuditRecordWire | undefined;
  /** The last record whose signature held: every record up to it is the controller's. */
  private vouched = 0;

  constructor(private readonly options: TrailCheckOptions = {}) {
    this.at = options.from ?? chainStart;
  }

  get cursor(): ChainCursor {
    return this.at;
  }

  /** Checks the next records (oldest first); the first break, or undefined to go on. */
  page(records: readonly AuditRecordWire[]): ChainBreak | undefined {
    const signed: AuditRecordWire[] = [];
    for (const record of records) {
      const broken = this.next(record);
      if (broken) return broken;
      if (record.encoding >= 2 && record.signature !== null) signed.push(record);
    }
    // The last signature of a page vouches for every record before it (each hash covers the one before),
    // so one check a page suffices; when it fails, each signature says which record was rewritten first.
    const key = this.options.key;
    const lastSigned = signed.at(-1);
    if (!key || !lastSigned) return undefined;
    if (signatureHolds(key, lastSigned.hash, lastSigned.signature ?? '')) {
      this.vouched = lastSigned.seq;
      return undefined;
    }
    for (const record of signed) {
      if (!signatureHolds(key, record.hash, record.signature ?? ''))
        return { kind: 'signature', seq: record.seq, after: this.vouched };
      this.vouched = record.seq;
    }
    return { kind: 'signature', seq: lastSigned.seq, after: this.vouched };
  }

  /** Once every record was read: whether the trail ends where it should. `head`: the highest seq the store holds. */
  finish(head: number): ChainBreak | undefined {
    if (this.at.seq < head) return { kind: 'missing', seq: this.at.seq + 1, head };
    if (this.last && this.last.encoding >= 2 && this.last.signature === null) return { kind: 'cut', seq: this.at.seq };
    const checkpoint = this.options.checkpoint;
    if (checkpoint && !this.checkpointHeld && !this.checkpointLostTo) {
      if (checkpoint.seq > this.at.seq) return { kind: 'checkpoint-cut', seq: this.at.seq, checkpoint: checkpoint.seq };
      return { kind: 'checkpoint-differs', seq: checkpoint.seq };
    }
    return undefined;
  }

  private next(record: AuditRecordWire): ChainBreak | undefined {
    const { seq } = record;
    // A record's own fields are read only once its hash says they are what was hashed.
    if (!chainEncodings.includes(record.encoding)) return { kind: 'encoding', seq };
    if (recordHash(record) !== record.hash) return { kind: 'content', seq };
    if (record.encoding === 1 && this.signedFrom !== undefined) return { kind: 'encoding', seq };
    if (record.event === 'restored') {
      const restore = this.restoreOf(record);
      if (!restore && seq !== this.at.seq + 1) return { kind: 'gap', seq, expected: this.at.seq + 1 };
      if (restore) this.noteRestore(restore, record);
    } else if (seq !== this.at.seq + 1) return { kind: 'gap', seq, expected: this.at.seq + 1 };
    if (record.prev !== this.at.hash) return { kind: 'link', seq };
    if (record.encoding >= 2) this.signedFrom ??= seq;
    const checkpoint = this.options.checkpoint;
    if (checkpoint?.seq === seq) {
      if (checkpoint.hash !== record.hash) return { kind: 'checkpoint-differs', seq };
      this.checkpointHeld = true;
    }
    this.at = { seq, hash: record.hash };
    this.last = record;
    this.records += 1;
    return undefined;
  }

  /**
   * The restore a `restored` record explains, when it is the controller's (signed) and its details
   * account for its place: it follows the backup's head, and its seq is past both heads.
   */
  private restoreOf(record: AuditRecordWire): TrailRestore | undefined {
    const key = this.options.key;
    if (!key || record.encoding < 2 || record.signature === null) return undefined;
    if (!signatureHolds(key, record.hash, record.signature)) return undefined;
    const heads = restoredHeads(record.details);
    if (!heads || heads.backup.seq !== this.at.seq || heads.backup.hash !== this.at.hash) return undefined;
    if (record.seq !== Math.max(heads.backup.seq, heads.previous?.seq ?? 0) + 1) return undefined;
    return { seq: record.seq, backupSeq: heads.backup.seq, previousSeq: heads.previous?.seq ?? null };
  }

  private noteRestore(restore: TrailRestore, record: AuditRecordWire): void {
    this.restores.push(restore);
    const checkpoint = this.options.checkpoint;
    if (!checkpoint || this.checkpointHeld || restore.previousSeq === null) return;
    if (checkpoint.seq > restore.backupSeq && checkpoint.seq <= restore.previousSeq) {
      const previous = restoredHeads(record.details)?.previous;
      // The head the restore replaced is the checkpoint's seq with another hash: rewritten before the restore.
      if (previous?.seq === checkpoint.seq && previous.hash !== checkpoint.hash) return;
      this.checkpointLostTo = restore;
    }
  }
}

/** One sentence naming a break. */
export function describeBreak(broken: ChainBreak): string {
  switch (broken.kind) {
    case 'content':
      return `record ${broken.seq} was changed after it was written (its hash does not match its content as stored)`;
    case 'link':
      return `record ${broken.seq} does not follow the record before it (its prev is not that record's hash)`;
    case 'gap':
      return `record ${broken.expected} is missing (the next record found is ${broken.seq})`;
    case 'encoding':
      return `record ${broken.seq} is unsigned after signed records, or in an encoding this Portal does not know`;
    case 'signature':
      return (
        `record ${broken.seq} was rewritten, or one after record ${broken.after}: the controller's trail key ` +
        'did not sign it (its hashes were made again by someone without the key)'
      );
    case 'cut':
      return (
        `its tail was cut after record ${broken.seq}: the last record of every append is signed, ` +
        `and record ${broken.seq} is not`
      );
    case 'checkpoint-cut':
      return `its tail was cut: it ends at record ${broken.seq}, and the checkpoint holds record ${broken.checkpoint}`;
    case 'checkpoint-differs':
      return `record ${broken.seq} is not the record the checkpoint holds: the trail was rewritten up to it`;
    case 'missing':
      return `record ${broken.seq} is missing (the trail goes up to ${broken.head})`;
  }
}

/** The checkpoint in `text`, or why it is none (not JSON, a field missing, a signature that fails). */
export function parseCheckpoint(text: string): AuditCheckpoint | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return 'it is not JSON';
  }
  const checkpoint = value as Partial<AuditCheckpoint> | null;
  if (
    checkpoint?.portal !== 'audit-checkpoint' ||
    typeof checkpoint.project !== 'string' ||
    !Number.isSafeInteger(checkpoint.seq) ||
    (checkpoint.seq ?? 0) < 1 ||
    typeof checkpoint.hash !== 'string' ||
    !/^[0-9a-f]{64}$/.test(checkpoint.hash) ||
    typeof checkpoint.key !== 'string' ||
    typeof checkpoint.signature !== 'string'
  )
    return 'it is not a checkpoint that portal project audit --checkpoint wrote';
  const record = checkpoint.record;
  const bound =
    typeof record === 'object' &&
    record !== null &&
    record.project === checkpoint.project &&
    record.seq === checkpoint.seq &&
    chainEncodings.includes(record.encoding) &&
    typeof record.members === 'string' &&
    typeof record.details === 'string' &&
    recordHash(record) === checkpoint.hash;
  const key = auditPublicKey(checkpoint.key);
  if (!bound || !key || !signatureHolds(key, checkpoint.hash, checkpoint.signature))
    return 'its signature does not hold for its record (it was edited)';
  return checkpoint as AuditCheckpoint;
}
