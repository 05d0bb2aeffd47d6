/**
 * The audit trail's hash chain, pure: the canonical encoding of a record and its hash.
 * docs/audit.md describes the same encoding so that anyone can verify an export; src/shared/audit-verify.ts
 * checks a whole chain with it.
 *
 * Canonical JSON: objects with their keys sorted by UTF-16 code units, arrays in order, no whitespace,
 * strings and numbers as JSON.stringify writes them; numbers must be finite. A record's hash is the
 * SHA-256 (hex) of the UTF-8 bytes of the array
 * [encoding, project, seq, time, recorded, event, seenBy, reportId, members, details, prev]
 * written as canonical JSON, with `members` and `details` as the very text the store holds (which the
 * controller writes as canonical JSON): a record is checked as it is stored, never as it re-encodes.
 */
import { createHash } from 'node:crypto';
import type { AuditRecordWire } from '../wire/protocol/audit.ts';

/** The `prev` of a project's first record. */
export const genesisHash = '0'.repeat(64);

/**
 * The version of the encoding, first in the hashed array. 1: records hash-chained only (written before
 * records were signed); 2: the same chain, with the last record of each append signed by the controller's
 * trail key (src/shared/audit-signature.ts). A controller writes 2; both verify.
 */
export const chainEncodingVersion = 2;
export const chainEncodings: readonly number[] = [1, 2];

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
export type HashedRecord = Omit<AuditRecordWire, 'hash' | 'signature'>;

/**
 * The hash of a record as stored: its members and details text is hashed as it is, so a record whose
 * text differs from what the controller wrote (another escape, another spacing) fails its hash even
 * when it parses to the same values.
 */
export function recordHash(record: HashedRecord): string {
  const encoded =
    `[${record.encoding},${JSON.stringify(record.project)},${record.seq},${record.time},${record.recorded},` +
    `${JSON.stringify(record.event)},${JSON.stringify(record.seenBy)},${JSON.stringify(record.reportId)},` +
    `${record.members},${record.details},${JSON.stringify(record.prev)}]`;
  return createHash('sha256').update(encoded, 'utf8').digest('hex');
}
