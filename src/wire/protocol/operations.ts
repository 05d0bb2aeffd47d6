/**
 * Every request and answer of the controller and of a relay, and the events they push: declared once,
 * so a server's handlers are checked against the answers its clients read.
 */
import type { PeerIdentity } from '../../pki/identity.ts';
import type { AuditPage, AuditReport, AuditRequest } from './audit.ts';

// Requests and answers. On the wire a request is {id, op, ...request}; an answer {id, ok: true,
// ...answer} or {id, ok: false, code, message, hint, exit}.

type Empty = Record<never, never>;

export interface EnrollmentAnswer {
  readonly identity: PeerIdentity;
  readonly certificate: string;
  readonly authority: string;
  readonly networkDomain: string;
}

export interface ProjectInfo {
  readonly id: string;
  readonly name: string;
  readonly controller: string;
  readonly network_domain: string;
  readonly created_at: string;
}

/** A relay that serves a project: where nodes dial it, and the certificate they pin. */
export interface RelayEntry {
  /** The relay node's id (or "controller" for the relay inside the controller process). */
  readonly id: string;
  readonly address: string;
  readonly fingerprint: string;
}

export interface TicketBody {
  readonly expiresInMs: number;
  readonly usageCount: number;
  /**
   * The attributes the ticket grants (NAME or KEY=VALUE), comma-joined (`--attribute a --attribute
   * team=ops`); a single one is the form of every version, and a controller of an earlier one refuses
   * a list rather than grant less. Empty for a relay node's ticket.
   */
  readonly attribute: string;
  /**
   * The relay names the ticket grants, comma-joined (`--relay a --relay b`); a single name is the form
   * of every version, and a controller of an earlier one refuses a list rather than grant less.
   */
  readonly relay?: string;
  readonly tls?: boolean;
  readonly relayNode?: boolean;
  /** The ticket enrolls another administrator of the project (with `portal enroll --ticket`). */
  readonly admin?: boolean;
}

/** A member taken out of the project, as nodes and relays keep it: refused until `until` (epoch ms). */
export interface RevokedEntry {
  readonly nodeId: string;
  /** When the member's last certificate has expired: after it the entry may be forgotten. */
  readonly until: number;
  /**
   * The controller's proof that it made this revocation (an HMAC under a key only it holds), kept by
   * nodes and relays and returned to a controller restored from a backup that predates it
   * (`revocations-return`). Absent from controllers of an earlier version.
   */
  readonly proof?: string;
}

/** A member of the project, as `portal project members` shows it. Times are ISO 8601, or null. */
export interface MemberInfo {
  readonly id: string;
  readonly kind: 'node' | 'relay' | 'administrator';
  readonly attributes: readonly string[];
  /** The relay names it may register (outlets). */
  readonly relays: readonly string[];
  readonly tls: boolean;
  readonly enrolledAt: string;
  readonly certificateExpiresAt: string | null;
  /** When it last opened or closed a connection to the controller; "now" while one is open. */
  readonly lastSeen: string | null;
  /** Whether it holds a connection to the controller now. */
  readonly connected: boolean;
  /** End-to-end sessions and direct connections it reported carrying at its last heartbeat; null when not connected. */
  readonly liveSessions: number | null;
  readonly revoked: { readonly at: string; readonly by: string; readonly reason: string } | null;
}

/** An enrollment ticket that can still be used, as `portal project tickets` shows it: never its secret. */
export interface TicketInfo {
  readonly id: string;
  readonly grants: {
    /** The first of `attributes` ('' for none), as tickets of one attribute named it. */
    readonly attribute: string;
    readonly attributes: readonly string[];
    readonly relays: readonly string[];
    readonly tls: boolean;
    readonly relayNode: boolean;
    readonly admin: boolean;
  };
  readonly usesLeft: number;
  readonly expiresAt: string;
  readonly issuedAt: string;
  /** The administrator who issued it; null for tickets issued before this was kept. */
  readonly issuedBy: string | null;
}

/**
 * An inlet's direct path, as the outlets it would accept learn it: where to dial it, and the secret to
 * name. The attribute the inlet allows is not in it: the controller hands the advert only to members
 * that carry it (see ControllerOperations.advertise), so every outlet that receives one carries it.
 */
export interface InletAdvert {
  /** The inlet's node id. */
  readonly inlet: string;
  /** The inlet's attributes, from its certificate: an outlet dials only an inlet its allow accepts. */
  readonly attributes: readonly string[];
  /** The relay name whose outlets it wants. */
  readonly via: string;
  /** host:port addresses, tried at once; the first to connect is used. */
  readonly addresses: readonly string[];
  /** Named in the direct preamble: anything else on the listener is closed before TLS. */
  readonly secret: string;
  /** Streams the inlet keeps ready for new clients: an outlet keeps that many direct connections waiting. */
  readonly warm: number;
}

export interface ControllerOperations {
  ping: { request: Empty; answer: Empty };
  'admin-enroll': { request: { code: string; request: string; project?: string }; answer: EnrollmentAnswer };
  enroll: { request: { ticket: string; secret: string; request: string }; answer: EnrollmentAnswer };
  renew: { request: { request: string }; answer: EnrollmentAnswer };
  'reissue-challenge': { request: Empty; answer: { challenge: string } };
  reissue: { request: { certificate: string; request: string }; answer: EnrollmentAnswer };
  ticket: { request: TicketBody; answer: { ticket: string } };
  project: { request: Empty; answer: { project: ProjectInfo } };
  ca: { request: Empty; answer: { certificate: string } };
  /** The relays serving the member's project; changes are pushed as a `relays` event. */
  relays: { request: Empty; answer: { relays: readonly RelayEntry[] } };
  /** A relay node says where nodes reach it; it serves the project while this connection lasts. */
  'relay-announce': { request: { address: string; fingerprint: string }; answer: Empty };
  /**
   * An inlet's direct path, told while this connection lasts to the members whose certificate grants
   * the relay name `via` and carries the attribute `allow` (the inlet's tcp-inlet.allow): the outlets
   * the inlet would accept, and no other member.
   */
  advertise: {
    request: { via: string; allow: string; addresses: readonly string[]; secret: string; warm: number };
    answer: Empty;
  };
  /**
   * Withdraws the direct path this connection advertised for `via` (an inlet removed by a reload); its
   * hearers are told `inlet-gone`. Each of a node's inlets advertises under its own via.
   */
  unadvertise: { request: { via: string }; answer: Empty };
  /** The direct paths of the inlets that want one of this member's relay names and allow one of its attributes. */
  inlets: { request: Empty; answer: { inlets: readonly InletAdvert[] } };
  /** Every member of the project, revoked ones included (administrators only). */
  members: { request: Empty; answer: { members: readonly MemberInfo[] } };
  /**
   * Takes a member out of the project (administrators only): it is never certified again, its
   * connections are closed, and every node and relay of the project is told at once (`revoked`).
   */
  revoke: { request: { member: string; reason: string }; answer: { revoked: RevokedEntry } };
  /**
   * Grants a node more relay names (administrators only; `relay` one name or several comma-joined),
   * keeping the ones it holds: its next certificate carries them. The answer says which were added
   * and every name the member holds now.
   */
  grant: {
    request: { member: string; relay: string };
    answer: { member: string; added: readonly string[]; relays: readonly string[] };
  };
  /** The members revoked whose certificates may still be valid: what nodes and relays refuse. */
  revocations: { request: Empty; answer: { revoked: readonly RevokedEntry[] } };
  /**
   * A node or relay returns the revocations it holds that the controller's list lacks (a controller
   * restored from a backup taken before them): each proven by the controller's own proof is taken back,
   * as if revoked again now; the others are ignored. The answer says how many were taken back.
   */
  'revocations-return': { request: { revoked: readonly RevokedEntry[] }; answer: { taken: number } };
  /** The tickets that can still enroll someone (administrators only). */
  tickets: { request: Empty; answer: { tickets: readonly TicketInfo[] } };
  /** Cancels a ticket before it is used up (administrators only). */
  'ticket-cancel': { request: { ticket: string }; answer: Empty };
  /**
   * An administrator asks for a one-time sign-in link to the web console of the replica it reached
   * (`portal console`): valid minutes, for one sign-in. CONSOLE_OFF where the controller serves none.
   */
  'console-link': { request: Empty; answer: { link: string; expiresAt: string } };
  /**
   * What a member reports at each heartbeat: the end-to-end sessions and direct connections it carries,
   * shown by `portal project members`: an integer from 0 to maxLiveSessions, else refused (BAD_REQUEST).
   */
  'member-report': { request: { liveSessions: number }; answer: Empty };
  /**
   * What a node's portals carry now, for the web console's overview: sent when it changed, at most
   * every portalReportMs while the node is connected, and held for as long as this connection lasts.
   * Each report replaces the last; a controller before it answers UNKNOWN_OPERATION and the node stops sending.
   */
  'portal-report': { request: { portals: readonly PortalReport[] }; answer: Empty };
  /**
   * A node or relay hands over events it saw (sessions, refusals), oldest first; the answer says how
   * many were new. A record sent again is recognised by its id and written once. The controller takes
   * the batch as far as the member's budget goes: the reporter keeps the records past `taken` and sends
   * them again after `retryAfterMs`; a batch sent before then is refused whole and counted as dropped
   * (`overBudget`: how many records; controllers before it leave it out).
   */
  'audit-report': {
    request: { records: readonly AuditReport[] };
    answer: { written: number; taken: number; retryAfterMs: number; overBudget?: number };
  };
  /** An administrator reads the project's audit trail: a page of records after `afterSeq`, bounded in bytes. */
  audit: { request: AuditRequest; answer: AuditPage };
}

/** One of a node's portals as it reports it (`portal-report`). */
export interface PortalReport {
  /** 'inlet' or 'outlet'. */
  readonly part: string;
  /** The portal's name in the node's configuration. */
  readonly name: string;
  /** The relay name: an inlet's via, an outlet's relay. */
  readonly relay: string;
  /** The part's state, as /show gives it (up, waiting, failed). */
  readonly status: string;
  /** When the part started, in milliseconds since the epoch. */
  readonly since: number;
  /** Connections open now (an inlet's clients, an outlet's to its target), and carried since the start. */
  readonly open: number;
  readonly total: number;
  /**
   * Bytes towards the service (from the inlet's clients, to the outlet's target), and back: open
   * connections included.
   */
  readonly up: number;
  readonly down: number;
  /** An inlet's pool: each outlet, the path of its session ('direct', 'relay <id>', '' without one) and its clients. */
  readonly peers: readonly PortalPeer[];
}

export interface PortalPeer {
  readonly node: string;
  readonly path: string;
  readonly open: number;
}

export interface SpliceGrant {
  readonly splice: string;
  readonly secret: string;
  /** The outlet dialled (its node id): the inlet keeps a session to each outlet of a pool. */
  readonly outlet?: string;
}

export interface RelayOperations {
  ping: { request: Empty; answer: Empty };
  /** An outlet offers `relay` (its relay name) to inlets whose attribute is `allow`. */
  register: { request: { relay: string; allow: string }; answer: Empty };
  /** Withdraws this connection's registration of `relay` (an outlet removed by a reload). */
  unregister: { request: { relay: string }; answer: Empty };
  /**
   * An inlet asks for a splice to an outlet of `relay` that allows it and carries the attribute `allow`
   * (the inlet's tcp-inlet.allow): the relay pairs it with no other.
   */
  connect: { request: { relay: string; allow: string; outlet?: string }; answer: SpliceGrant };
  /**
   * An inlet asks which outlets of `relay` it pairs with (a pool: each allows it, and `allow` admits
   * each), by node id; the relay pushes an `outlets` event whenever that set changes, while the
   * connection lasts. Asking again for the same name replaces the watch.
   */
  watch: { request: { relay: string; allow: string }; answer: { outlets: readonly string[] } };
}

export type Operations = ControllerOperations | RelayOperations;
/** Requests and answers are JSON objects: on the wire their fields follow the id and op, or the id and ok. */
export type RequestOf<Ops, K extends keyof Ops> = Ops[K] extends { request: infer R extends object } ? R : never;
export type AnswerOf<Ops, K extends keyof Ops> = Ops[K] extends { answer: infer A extends object } ? A : never;

/** Pushed by the controller on a member's connection. */
export interface RelaysEvent {
  readonly event: 'relays';
  readonly relays: readonly RelayEntry[];
}
/** Pushed to the members that may hear of an inlet's direct path (see `advertise`): the path, new or changed. */
export interface InletEvent {
  readonly event: 'inlet';
  readonly advert: InletAdvert;
}

/**
 * Pushed to the members that heard of an inlet's direct path when it is withdrawn (its connection to
 * the controller closed).
 */
export interface InletGoneEvent {
  readonly event: 'inlet-gone';
  readonly inlet: string;
}

/**
 * Pushed to every member of a project when members are revoked: nodes close every session with them,
 * relays every splice and registration of theirs, and both refuse them from then on.
 */
export interface RevokedEvent {
  readonly event: 'revoked';
  readonly revoked: readonly RevokedEntry[];
}

/**
 * Pushed by controller replicas to every member when it connects and when the set changes: every
 * address the running replicas were given (a replica added later is found without new tickets).
 */
export interface ControllersEvent {
  readonly event: 'controllers';
  readonly addresses: readonly string[];
}

export type ControllerEvent = RelaysEvent | InletEvent | InletGoneEvent | RevokedEvent | ControllersEvent;

/** Pushed by a relay to an outlet: an inlet asked for a splice; join it with this secret. */
export interface DialEvent {
  readonly event: 'dial';
  readonly splice: string;
  readonly secret: string;
  /** The node that asked for the splice. */
  readonly from: string;
  /**
   * The relay name asked for: which of a node's outlets answers. Absent from relays of an earlier
   * version, whose dials a node of one outlet answers alone.
   */
  readonly relay?: string;
}

/** Members the relay refused on an outlet's behalf since the last report, pushed at most once a second. */
export interface RefusedEvent {
  readonly event: 'refused';
  readonly from: string;
  readonly attributes: readonly string[];
  readonly count: number;
  /** The relay name the refused members asked for (see DialEvent.relay). */
  readonly relay?: string;
}

/** Pushed to an inlet that watches `relay`: the outlets it pairs with now, by node id (see `watch`). */
export interface OutletsEvent {
  readonly event: 'outlets';
  readonly relay: string;
  readonly outlets: readonly string[];
}

export type RelayEvent = DialEvent | RefusedEvent | OutletsEvent;

/** The events a service of these operations pushes. */
export type EventOf<Ops> = Ops extends ControllerOperations
  ? ControllerEvent
  : Ops extends RelayOperations
    ? RelayEvent
    : never;

/** What a server answers each operation with; it may throw a PortalError instead. */
export type OperationHandlers<Ops> = {
  readonly [K in keyof Ops]: (body: RequestOf<Ops, K>) => AnswerOf<Ops, K> | Promise<AnswerOf<Ops, K>>;
};
