/**
 * The audit trail's contract: every kind of event, what a node or relay reports of its own events
 * (`audit-report`), and what an administrator reads back (`audit`). docs/audit.md is the reader's
 * version of this file; the two change together.
 */

/** Events the controller records itself. */
export const controllerEventKinds = [
  'project-created',
  'ticket-issued',
  'ticket-used',
  'ticket-refused',
  'ticket-cancelled',
  'enrolled',
  'renewed',
  'reissued',
  'reissue-refused',
  'revoked',
  /** An administrator granted a node more relay names: details `relays` (the names added, comma-joined), `by`. */
  'relay-granted',
  'relay-announced',
  'relay-lost',
  /**
   * The store was restored from a backup: details `{"backupHead":{"seq","hash"},"previousHead":…|null}`;
   * its prev is the backup's head, its seq one past the later of the two heads.
   */
  'restored',
  /** An administrator signed in to the web console: details `expires_at` (the session's end). */
  'console-signed-in',
  /** An administrator signed out of the web console. */
  'console-signed-out',
] as const;

/** Events nodes and relays report over their connection to the controller. */
export const reportedEventKinds = ['session', 'refused', 'reports-dropped', 'revoked-cut'] as const;

export const auditEventKinds = [...controllerEventKinds, ...reportedEventKinds] as const;
export type ControllerEventKind = (typeof controllerEventKinds)[number];
export type ReportedEventKind = (typeof reportedEventKinds)[number];
export type AuditEventKind = (typeof auditEventKinds)[number];

export const isAuditEventKind = (value: string): value is AuditEventKind =>
  (auditEventKinds as readonly string[]).includes(value);
/** The hint of a refused --event: every kind it may name, so that the user need not look them up. */
export const eventKindsHint = `give one of the event kinds: ${auditEventKinds.join(', ')} (docs/audit.md)`;
export const isReportedEventKind = (value: string): value is ReportedEventKind =>
  (reportedEventKinds as readonly string[]).includes(value);

/** Why a node or relay refused a peer (the `reason` of a `refused` record). */
export type RefusalReason = 'allow' | 'untrusted' | 'limits' | 'revoked';

/** A detail's value: scalars only, so that every record has one canonical encoding. */
export type AuditValue = string | number | boolean | null;
export type AuditDetails = Readonly<Record<string, AuditValue>>;

/** Who saw an event the controller recorded itself. */
export const controllerWitness = 'controller';

/**
 * One event as a node or relay reports it. `id` is the reporter's own name for it, random, so that a
 * report sent again (its answer was lost) is recognised and written once. `details` is the JSON text of
 * an object of scalars (see AuditDetails).
 */
export interface AuditReport {
  readonly id: string;
  readonly event: string;
  /** When it happened, epoch milliseconds, by the reporter's clock. */
  readonly time: number;
  readonly members: readonly string[];
  readonly details: string;
}

/** One record of the trail, as the controller stores and returns it. */
export interface AuditRecordWire {
  readonly project: string;
  /** Its place in the project's chain, from 1. */
  readonly seq: number;
  /** When it happened (epoch ms): by the controller's clock, or the reporter's for a reported event. */
  readonly time: number;
  /** When the controller appended it (epoch ms). */
  readonly recorded: number;
  readonly event: string;
  /** "controller", or the node id of the member that reported it. */
  readonly seenBy: string;
  readonly reportId: string;
  /** The canonical JSON text of the members concerned (an array of ids). */
  readonly members: string;
  /** The canonical JSON text of the details (an object of scalars). */
  readonly details: string;
  /** The hash of the record before it (64 zeros for the first). */
  readonly prev: string;
  readonly hash: string;
  /** The version of its encoding (src/shared/audit-chain.ts): 1 before records were signed, 2 since. */
  readonly encoding: number;
  /** The trail key's signature of its hash (base64url) when it was the last record of an append; else null. */
  readonly signature: string | null;
}

/** An answer to `audit`: a page of records, and where the next page starts. */
export interface AuditPage {
  readonly records: readonly AuditRecordWire[];
  /** The highest seq the project's trail holds. */
  readonly head: number;
  /** The seq the next page starts after: past records a filter left out, too. */
  readonly next: number;
  /** Whether records after `next` may match: the page stopped at a bound, not at the end. */
  readonly more: boolean;
  /** The public half of the controller's trail key (base64url of an Ed25519 key): what signatures are checked with. */
  readonly key: string | null;
}

/**
 * The version of the `audit` exchange. Version 2 bounds a page by bytes as well, so a page may be
 * shorter than asked while more follow (`more`), and returns signed records (encoding 2). A reader of
 * version 1 stopped at the first short page and took a signed record for a broken chain: a controller
 * refuses it rather than let it list too little or report tampering that is not there.
 */
export const auditExchangeVersion = 2;

/** An `audit` request: a query, and the version of the exchange its reader speaks (readers of version 1 sent none). */
export type AuditRequest = AuditQuery & { readonly exchange: number };

/**
 * What an administrator asks of the trail: records after `afterSeq`, oldest first, filtered. A reader
 * asks page after page on one connection, each from the last answer's `next`, until `more` is false.
 */
export interface AuditQuery {
  readonly afterSeq: number;
  /** At most this many (bounded by auditLimits.pageRecords). */
  readonly limit: number;
  /** Only records whose time is at or after this (epoch ms); NaN or 0: all. */
  readonly since: number;
  readonly member?: string;
  readonly event?: string;
}

export const auditLimits = {
  /** Records one audit-report may carry. */
  reportRecords: 200,
  /** Records one answer to `audit` carries at most. */
  pageRecords: 2000,
  /**
   * The JSON bytes of the records one answer to `audit` carries at most (past the first): under a JSON
   * line's bound (256 KiB) and a peer's unread answers (1 MiB), so a page never closes the connection.
   */
  pageBytes: 192 * 1024,
  /** Records one `audit` request reads at most to find those a member filter keeps: its cost is bounded. */
  scanRecords: 5000,
  /** The longest details text a report may carry, in bytes. */
  detailsBytes: 2048,
  /** Members one record names. */
  members: 8,
} as const;
