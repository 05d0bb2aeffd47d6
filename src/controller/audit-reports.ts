/**
 * What a node or relay reports of its own events, checked before it reaches the trail: a kind members
 * may report, an id, a time bounded by the controller's clock, and for each kind only what that kind
 * can truthfully say (reportRules: who it names, which details, which values). The reporter is the
 * member the connection's certificate proves, never a name the report gives. Pure: what the store
 * knows of the members named comes in as data.
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
import { reportRules, type NamedMember } from './report-rules.ts';
import { reportedTimeBounds } from './limits.ts';

export type { NamedMember } from './report-rules.ts';

const reportId = /^[A-Za-z0-9_-]{8,64}$/;
export const memberIdPattern = /^[A-Za-z0-9-]{1,64}$/;
const detailKey = /^[a-z][a-z0-9_]{0,39}$/;
/** Details hold at most this many keys. */
const maxDetailKeys = 24;

/** What a batch of reports is checked against. */
export interface ReportContext {
  readonly peer: PeerIdentity;
  /** The controller's clock now (epoch ms). */
  readonly now: number;
  /** The members of the reporter's project that the reports name, as the store knows them; others are unknown. */
  readonly members: ReadonlyMap<string, NamedMember>;
}

/** The member ids a batch names, each once: what the store is asked about before the batch is checked. */
export function membersNamed(reports: readonly AuditReport[]): string[] {
  const ids = new Set<string>();
  for (const report of reports.slice(0, auditLimits.reportRecords))
    for (const id of report.members.slice(0, 2)) if (memberIdPattern.test(id)) ids.add(id);
  return [...ids];
}

/** Each report as an entry of the trail, in order, or undefined where it may not be written. */
export function entriesOfReports(context: ReportContext, reports: readonly AuditReport[]): (AuditEntry | undefined)[] {
  return reports.slice(0, auditLimits.reportRecords).map((report) => entryOf(context, report));
}

/** What a record costs the budget: the bytes of what it carries. */
export const reportBytes = (report: AuditReport): number =>
  report.id.length +
  report.event.length +
  Buffer.byteLength(report.details) +
  report.members.reduce((sum, id) => sum + id.length + 3, 0);

function entryOf(context: ReportContext, report: AuditReport): AuditEntry | undefined {
  const { peer } = context;
  if (!isReportedEventKind(report.event) || !reportId.test(report.id)) return undefined;
  if (!Number.isSafeInteger(report.time) || report.time <= 0) return undefined;
  if (report.members.length > auditLimits.members || !report.members.every((id) => memberIdPattern.test(id)))
    return undefined;
  const details = detailsOf(report.details);
  if (!details) return undefined;
  const rule = reportRules[report.event];
  const named = report.members.map((id) => context.members.get(id));
  if (!rule({ reporter: peer, members: report.members, named, details })) return undefined;
  return {
    event: report.event,
    seenBy: peer.nodeId,
    reportId: report.id,
    ...timeOf(report.time, context.now, details),
    members: report.members,
  };
}

/**
 * The reporter's time when it is plausible by the controller's clock; else the controller's, with the
 * reporter's kept in the details as `reported_time` (which no reporter may send itself).
 */
function timeOf(reported: number, now: number, details: AuditDetails): { time: number; details: AuditDetails } {
  if (reported <= now + reportedTimeBounds.aheadMs && reported >= now - reportedTimeBounds.behindMs)
    return { time: reported, details };
  const date = new Date(reported);
  const kept = Number.isNaN(date.getTime()) ? reported : date.toISOString();
  return { time: now, details: { ...details, reported_time: kept } };
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
