/**
 * The audit trail's hash chain, pure: the canonical encoding of a record, its hash, and the check of
 * a whole chain. docs/audit.md describes the same encoding so that anyone can verify an export.
 *
 * Canonical JSON: objects with their keys sorted by UTF-16 code units, arrays in order, no whitespace,
 * strings and numbers as JSON.stringify writes them; numbers must be finite. A record's hash is the
 * SHA-256 (hex) of the UTF-8 bytes of the canonical JSON of the array
 * [1, project, seq, time, recorded, event, seenBy, reportId, members, details, prev].
 */
import { createHash } from 'node:crypto';
import type { AuditRecordWire } from '../wire/protocol/audit.ts';

/** The `prev` of a project's first record. */
export const genesisHash = '0'.repeat(64);

/** The version of the encoding, first in the hashed array. */
export const chainEncodingVersion = 1;

export function canonicalJson(value: unknown): string {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return JSON.stringify(value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TypeError('a canonical number must be finite');
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  throw new TypeError(`no canonical form for a ${typeof value}`);
}

/** The fields a record's hash covers. */
export type HashedRecord = Omit<AuditRecordWire, 'hash'>;

/** The hash of a record; throws when its members or details are not JSON. */
export function recordHash(record: HashedRecord): string {
  const members: unknown = JSON.parse(record.members);
  const details: unknown = JSON.parse(record.details);
  const encoded = canonicalJson([
    chainEncodingVersion,
    record.project,
    record.seq,
    record.time,
    record.recorded,
    record.event,
    record.seenBy,
    record.reportId,
    members,
    details,
    record.prev,
  ]);
  return createHash('sha256').update(encoded, 'utf8').digest('hex');
}

/**
 * recordHash for a record whose members and details are canonical JSON already (as the controller
 * writes them): the same hash, without reading them back.
 */
export function canonicalRecordHash(record: HashedRecord): string {
  const encoded =
    `[${chainEncodingVersion},${JSON.stringify(record.project)},${record.seq},${record.time},${record.recorded},` +
    `${JSON.stringify(record.event)},${JSON.stringify(record.seenBy)},${JSON.stringify(record.reportId)},` +
    `${record.members},${record.details},${JSON.stringify(record.prev)}]`;
  return createHash('sha256').update(encoded, 'utf8').digest('hex');
}

export type ChainBreak =
  | { readonly kind: 'content'; readonly seq: number }
  | { readonly kind: 'link'; readonly seq: number }
  | { readonly kind: 'gap'; readonly seq: number; readonly expected: number };

/** Carries a chain's check from one page of records to the next. */
export interface ChainCursor {
  readonly seq: number;
  readonly hash: string;
}

export const chainStart: ChainCursor = { seq: 0, hash: genesisHash };

/**
 * Checks `records` (consecutive, oldest first) after `cursor`: the first break, or the cursor to go on
 * from. A record is broken when its hash is not that of its content (it was edited), when its prev is
 * not the hash of the record before (one before it was replaced), or when its seq does not follow (a
 * record was removed or inserted).
 */
export function checkChain(
  records: readonly AuditRecordWire[],
  cursor: ChainCursor,
): { readonly broken: ChainBreak } | { readonly cursor: ChainCursor } {
  let at = cursor;
  for (const record of records) {
    if (record.seq !== at.seq + 1) return { broken: { kind: 'gap', seq: record.seq, expected: at.seq + 1 } };
    let hash: string | undefined;
    try {
      hash = recordHash(record);
    } catch {
      hash = undefined;
    }
    if (hash !== record.hash) return { broken: { kind: 'content', seq: record.seq } };
    if (record.prev !== at.hash) return { broken: { kind: 'link', seq: record.seq } };
    at = { seq: record.seq, hash: record.hash };
  }
  return { cursor: at };
}

/** One sentence naming a break. */
export function describeBreak(broken: ChainBreak): string {
  switch (broken.kind) {
    case 'content':
      return `record ${broken.seq} was changed after it was written (its hash does not match its content)`;
    case 'link':
      return `record ${broken.seq} does not follow the record before it (its prev is not that record's hash)`;
    case 'gap':
      return `record ${broken.expected} is missing (the next record found is ${broken.seq})`;
  }
}
