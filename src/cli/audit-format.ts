/**
 * How `portal project audit` writes a record: the export format (one JSON object per line, the schema
 * of docs/audit.md) and a one-line form for people. Pure.
 */
import { printable } from '../shared/errors.ts';
import type { AuditRecordWire } from '../wire/protocol/audit.ts';

/** One record as exported: docs/audit.md documents every field. */
export interface AuditExport {
  readonly seq: number;
  readonly project: string;
  /** ISO 8601 with milliseconds; hashed as epoch milliseconds. */
  readonly time: string;
  readonly recorded: string;
  readonly event: string;
  readonly seen_by: string;
  readonly members: unknown;
  readonly details: unknown;
  readonly report_id: string;
  readonly prev: string;
  readonly hash: string;
  readonly encoding: number;
  readonly signature: string | null;
}

const parsed = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    // A damaged row is shown as it is; --verify names it.
    return text;
  }
};

export function exportOf(record: AuditRecordWire): AuditExport {
  return {
    seq: record.seq,
    project: record.project,
    time: new Date(record.time).toISOString(),
    recorded: new Date(record.recorded).toISOString(),
    event: record.event,
    seen_by: record.seenBy,
    members: parsed(record.members),
    details: parsed(record.details),
    report_id: record.reportId,
    prev: record.prev,
    hash: record.hash,
    encoding: record.encoding,
    signature: record.signature,
  };
}

/** `2026-11-25T10:00:00.000Z #12 session by n1… members n1…,n2… path=direct bytes_from_client=5` */
export function lineOf(record: AuditRecordWire): string {
  const exported = exportOf(record);
  const members = Array.isArray(exported.members) ? exported.members.join(',') : String(exported.members);
  const details =
    typeof exported.details === 'object' && exported.details !== null
      ? Object.entries(exported.details)
          .map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`)
          .join(' ')
      : String(exported.details);
  return printable(
    `${exported.time} #${record.seq} ${record.event} seen by ${record.seenBy}` +
      (members ? ` members ${members}` : '') +
      (details ? ` ${details}` : ''),
  );
}
