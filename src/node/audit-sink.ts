/**
 * What a node's or relay's parts record in the audit trail, through the outbox: sessions when they
 * end, and refusals tallied per window (see auditRefusalWindow), each per portal.
 */
import type { AuditDetails, RefusalReason } from '../wire/protocol/audit.ts';
import type { AuditOutbox } from './audit-outbox.ts';
import { auditRefusalWindow } from './limits.ts';

/** One client connection carried through a portal, as the inlet reports it once it ended. */
export interface SessionRecord {
  /** The outlet's node id, when the inlet knows it. */
  readonly outlet: string | undefined;
  readonly path: 'direct' | 'relay';
  /** The relay's id, on the relay path. */
  readonly relay: string | undefined;
  readonly openedAt: number;
  readonly bytesFromClient: number;
  readonly bytesToClient: number;
  /** `closed` when the client connection ended cleanly, `cut` when it was reset or destroyed. */
  readonly ended: 'closed' | 'cut';
  readonly reason?: string;
}

/** A portal's view of the trail. */
export interface PortalAudit {
  session(record: SessionRecord): void;
  /** A peer refused by this process: `peer` when its id is known. */
  refused(reason: RefusalReason, peer: string | undefined, detail: string): void;
}

interface Tally {
  readonly reason: RefusalReason;
  /** None: refused before any portal or relay name was given. */
  readonly portal: string | null;
  readonly peer: string | undefined;
  readonly detail: string;
  readonly first: number;
  count: number;
}

export class AuditSink {
  private tallies = new Map<string, Tally>();
  private overflow = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly outbox: AuditOutbox,
    /** This process's own member id. */
    private readonly self: () => string,
  ) {}

  forPortal(portal: string): PortalAudit {
    return {
      session: (record) => this.session(portal, record),
      refused: (reason, peer, detail) => this.refused(portal, reason, peer, detail),
    };
  }

  /** A peer refused at its connection, before it named a portal or relay (a revoked member at a relay). */
  refusedMember(reason: RefusalReason, peer: string, detail: string): void {
    this.refused(null, reason, peer, detail);
  }

  /** This process closed `connections` connections (sessions, streams, splices) of a member just revoked. */
  revokedCut(member: string, connections: number): void {
    this.outbox.record('revoked-cut', [member], { connections });
  }

  /** Records what is tallied now; stops the window. */
  close(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.report();
  }

  private session(portal: string, record: SessionRecord): void {
    const closedAt = Date.now();
    const details: AuditDetails = {
      portal,
      path: record.path,
      relay: record.relay ?? null,
      opened_at: new Date(record.openedAt).toISOString(),
      duration_ms: closedAt - record.openedAt,
      bytes_from_client: record.bytesFromClient,
      bytes_to_client: record.bytesToClient,
      ended: record.ended,
      ...(record.reason ? { reason: record.reason.slice(0, 200) } : {}),
    };
    const members = record.outlet ? [this.self(), record.outlet] : [this.self()];
    this.outbox.record('session', members, details, closedAt);
  }

  private refused(portal: string | null, reason: RefusalReason, peer: string | undefined, detail: string): void {
    const key = `${reason}\n${portal ?? ''}\n${peer ?? ''}`;
    const tally = this.tallies.get(key);
    if (tally) tally.count += 1;
    else if (this.tallies.size < auditRefusalWindow.keys)
      this.tallies.set(key, { reason, portal, peer, detail: detail.slice(0, 300), first: Date.now(), count: 1 });
    else this.overflow += 1;
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      this.report();
    }, auditRefusalWindow.ms).unref();
  }

  private report(): void {
    for (const tally of this.tallies.values()) {
      this.outbox.record('refused', tally.peer ? [tally.peer] : [], {
        portal: tally.portal,
        reason: tally.reason,
        count: tally.count,
        first_at: new Date(tally.first).toISOString(),
        detail: tally.detail,
      });
    }
    if (this.overflow > 0)
      this.outbox.record('refused', [], {
        reason: 'many-peers',
        count: this.overflow,
        detail: `refusals of more than ${auditRefusalWindow.keys} peers in ${auditRefusalWindow.ms} ms`,
      });
    this.tallies = new Map();
    this.overflow = 0;
  }
}
