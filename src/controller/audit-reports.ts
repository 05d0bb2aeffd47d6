/**
 * What a node or relay reports of its own events, checked before it reaches the trail: a kind members
 * may report, an id, a time, member ids, and details that are a small object of scalars. The reporter
 * is the member the connection's certificate proves, never a name the report gives. Pure.
 */
import type { PeerIdentity } from '../pki/identity.ts';
import {
  auditLimits,
  isReportedEventKind,
  type AuditDetails,
  type AuditReport,
  type AuditValue,
} from '../wire/protocol/audit.ts';
import type { AuditEntry } from './audit-trail.ts';

const reportId = /^[A-Za-z0-9_-]{8,64}$/;
export const memberIdPattern = /^[A-Za-z0-9-]{1,64}$/;
const detailKey = /^[a-z][a-z0-9_]{0,39}$/;
/** Details hold at most this many keys. */
const maxDetailKeys = 24;

/** The reports that are well formed, as entries of the trail; the rest are left out. */
export function entriesOfReports(peer: PeerIdentity, reports: readonly AuditReport[]): AuditEntry[] {
  return reports.slice(0, auditLimits.reportRecords).flatMap((report) => {
    const entry = entryOf(peer, report);
    return entry ? [entry] : [];
  });
}

function entryOf(peer: PeerIdentity, report: AuditReport): AuditEntry | undefined {
  if (!isReportedEventKind(report.event) || !reportId.test(report.id)) return undefined;
  if (!Number.isSafeInteger(report.time) || report.time <= 0) return undefined;
  if (report.members.length > auditLimits.members || !report.members.every((id) => memberIdPattern.test(id)))
    return undefined;
  const details = detailsOf(report.details);
  if (!details) return undefined;
  return {
    event: report.event,
    seenBy: peer.nodeId,
    reportId: report.id,
    time: report.time,
    members: report.members,
    details,
  };
}

function detailsOf(text: string): AuditDetails | undefined {
  if (Buffer.byteLength(text) > auditLimits.detailsBytes) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length > maxDetailKeys) return undefined;
  const details: Record<string, AuditValue> = {};
  for (const [key, item] of entries) {
    if (!detailKey.test(key) || !isScalar(item)) return undefined;
    details[key] = item;
  }
  return details;
}

const isScalar = (value: unknown): value is AuditValue =>
  value === null ||
  typeof value === 'string' ||
  typeof value === 'boolean' ||
  (typeof value === 'number' && Number.isFinite(value));
