/**
 * The controller's port. A TLS connection (ALPN portal-control, or none from clients of earlier
 * versions) speaks the control protocol: its first line names the version, then JSON lines, one request
 * → one answer, plus pushed events. The port may also serve a relay (the embedded default), which then
 * gets the connections of its own service and the raw splice halves; the controller knows it only as
 * the port's handlers. Nothing a peer sends can do more than close its own connection, and what a peer
 * may cost is bounded: unauthenticated connections by the admission limits, requests by how many may
 * be in flight, answers by backpressure (a peer that does not read is not read either), anonymous
 * peers by what they may ask and how often.
 */
import type { AddressInfo } from 'node:net';
import { RateLimiter } from '../shared/rate-limiter.ts';
import type { PeerIdentity } from '../pki/identity.ts';
import { defaultAdmissionLimits, type AdmissionLimits, type AdmissionStats } from '../wire/admission.ts';
import { MemberService, type Session } from '../wire/member-service.ts';
import type { AnsweredRequest } from '../wire/service-connection.ts';
import { PortalPort, type PortHandlers } from '../wire/portal-port.ts';
import {
  controllerFields,
  type AuditDetails,
  type ControllerEvent,
  type ControllerOperations,
  type MemberInfo,
  type OperationHandlers,
  type RevokedEntry,
} from '../wire/protocol.ts';
import { auditHandlers } from './audit-handlers.ts';
import { consoleLinkAnswer } from './console/link-answer.ts';
import { NotAuthenticated } from './not-authenticated.ts';
import { InletAdverts } from './inlet-adverts.ts';
import { readLiveSessions } from './live-sessions.ts';
import { PortalReports, takePortalReport } from './portal-reports.ts';
import {
  advertise,
  announceRelay,
  type AnnouncingConnection,
  type AnnouncementContext,
} from './member-announcements.ts';
import { ProjectSubscribers } from './project-subscribers.ts';
import { RelayDirectory } from './relay-directory.ts';
import type { MemberPresence } from './project-members.ts';
import type { Revocation } from './revocations.ts';
import type { ControllerService } from './service.ts';
import { memberConnections, memberInFlight, queuedBytesPerPeer } from '../wire/limits.ts';
import { anonymousRate, anonymousRequests } from './limits.ts';
import { timedOut } from '../shared/settled-within.ts';

/** How long a stopping controller waits for the last-seen times it is writing. */
const seenWritesWaitMs = 2000;

export interface ControlLimits {
  /** Requests a member's connection may have in flight. @default memberInFlight */
  readonly memberInFlight: number;
  /** Control connections one member may hold at once. @default memberConnections */
  readonly memberConnections: number;
  /** Requests a connection without a member certificate may send before it is closed. @default anonymousRequests */
  readonly anonymousRequests: number;
  /**
   * Requests per second, and the burst, that one source (an IPv4 address, an IPv6 /64) may send without a
   * member certificate. @default anonymousRate
   */
  readonly anonymousRate: { readonly perSecond: number; readonly burst: number };
  /** Unread answers and events a peer may leave queued before its connection is closed. @default queuedBytesPerPeer */
  readonly maxQueuedBytes: number;
}

export const defaultControlLimits: ControlLimits = {
  memberInFlight,
  memberConnections,
  anonymousRequests,
  anonymousRate,
  maxQueuedBytes: queuedBytesPerPeer,
};

export interface ControllerServerOptions {
  readonly service: ControllerService;
  readonly tls: { readonly key: string; readonly certificate: string };
  /** Handlers of a relay sharing this port (the embedded default). */
  readonly sharedWith?: PortHandlers;
  readonly relays?: RelayDirectory;
  readonly admission?: AdmissionLimits;
  readonly control?: ControlLimits;
  readonly log?: (line: string) => void;
  /** A member was revoked: the relay sharing this port (if any) cuts its splices and connections. */
  /** Returns how many splices of the member the relay sharing this port cut. */
  readonly onRevoked?: (revocation: Revocation) => number | undefined;
  /** Told of every request once it is answered (the controller's metrics). */
  readonly observe?: (answered: AnsweredRequest) => void;
  /** A one-time sign-in link to this controller's web console; undefined while it serves none. */
  readonly consoleLink?: (admin: PeerIdentity) => Promise<{ link: string; expiresAt: number }> | undefined;
}

/** One control connection, as its requests see it. */
interface Connection extends AnnouncingConnection {
  /** The member its certificate proves, if any. */
  readonly peer: PeerIdentity | undefined;
  /** Its source as per-source bounds count it: an IPv4 address, an IPv6 /64. */
  readonly source: string;
}

export interface ControllerServerStats {
  /** What the admission limits of its port hold and refused (nested, as ServiceFigures reads them). */
  readonly admission: AdmissionStats;
  readonly members: number;
  readonly anonymousRefused: number;
  /** Connections refused to members holding as many as they may. */
  readonly membersRefused: number;
  /** Direct paths inlets advertise now. */
  readonly directPaths: number;
  /** What connected members reported at their last heartbeat: nodes' end-to-end connections, relays' splices. */
  readonly reported: { readonly node: number; readonly relay: number };
}

export class ControllerServer {
  readonly relays: RelayDirectory;
  private readonly port: PortalPort;
  private readonly limits: ControlLimits;
  private readonly anonymousRate: RateLimiter;
  private readonly members: MemberService<ControllerOperations, ControllerEvent>;
  /** Each project's member connections, for pushed events. */
  private readonly subscribers = new ProjectSubscribers();
  private readonly adverts = new InletAdverts();
  /** Where members' announcements land; controller replicas share them (shared-kinds.ts). */
  readonly announcements: AnnouncementContext;
  /** Members revoked while this server ran: refused on a connection opened before the revocation. */
  private readonly revokedHere = new Set<string>();
  /** What each connected member reported at its last heartbeat: its live connections, and whether it is a relay. */
  private readonly reports = new Map<string, { readonly liveSessions: number; readonly relay: boolean }>();
  /** Last-seen times being written: close() waits for them, so none meets a closed store. */
  private readonly seenWrites = new Set<Promise<void>>();
  private anonymousRefused = 0;

  constructor(private readonly options: ControllerServerOptions) {
    this.limits = options.control ?? defaultControlLimits;
    this.relays = options.relays ?? new RelayDirectory();
    this.anonymousRate = new RateLimiter(this.limits.anonymousRate.perSecond, this.limits.anonymousRate.burst);
    this.members = new MemberService({
      service: 'control',
      fields: controllerFields,
      verifyPeer: (certificate) => options.service.verifyPeer(certificate),
      limits: this.limits,
      open: ({ peer, source, push }) => this.open({ peer, source }, push),
      anonymous: {
        admit: (source, count) => this.anonymousAllowed(source, count),
        open: ({ source }) => this.open({ peer: undefined, source }),
      },
      ...(options.log ? { log: options.log } : {}),
      ...(options.observe ? { observe: options.observe } : {}),
    });
    const shared = options.sharedWith;
    this.port = new PortalPort({
      tls: options.tls,
      admission: options.admission ?? defaultAdmissionLimits,
      handlers: {
        ...shared,
        secure: { ...shared?.secure, control: (socket, release) => void this.members.serve(socket, release) },
      },
    });
    this.relays.onChange((projectId) => this.announceRelays(projectId));
    this.announcements = {
      adverts: this.adverts,
      portals: new PortalReports(),
      relays: this.relays,
      subscribers: this.subscribers,
      audit: options.service.audit,
      log: options.log,
    };
  }

  listen(host: string, port: number): Promise<AddressInfo> {
    return this.port.listen(host, port);
  }

  /** Takes no new connections and closes the members' control connections (they reconnect to whoever listens next). */
  stopAccepting(): void {
    this.port.stopAccepting();
    this.members.closeConnections();
  }

  async close(): Promise<void> {
    this.members.closeConnections();
    await this.port.close();
    this.announcements.portals.stop();
    // What the closed connections wrote last (when each member was seen), before the store closes; a
    // database that does not answer (lost in a failover) keeps the controller from stopping no longer.
    if (await timedOut(Promise.all(this.seenWrites), seenWritesWaitMs))
      this.options.log?.(`controller: ${this.seenWrites.size} last-seen times were not written while stopping`);
  }

  stats(): ControllerServerStats {
    return {
      admission: this.port.stats(),
      members: this.members.openMemberConnections,
      anonymousRefused: this.anonymousRefused,
      membersRefused: this.members.refusedMemberConnections,
      directPaths: this.adverts.size,
      reported: this.reported(),
    };
  }

  private reported(): ControllerServerStats['reported'] {
    const sums = { node: 0, relay: 0 };
    for (const { liveSessions, relay } of this.reports.values()) sums[relay ? 'relay' : 'node'] += liveSessions;
    return sums;
  }

  /** Serves one control connection: a member's hears of its project while it lasts (`push`). */
  private open(
    { peer, source }: Pick<Connection, 'peer' | 'source'>,
    push?: (event: ControllerEvent) => void,
  ): Session<ControllerOperations> {
    const connection: Connection = { peer, source, withdraw: undefined, adverts: new Map(), dropReport: undefined };
    const subscriber = peer && push ? { peer, push } : undefined;
    if (subscriber) this.subscribers.add(subscriber);
    if (peer) this.noteSeen(peer.nodeId);
    return {
      handlers: this.handlers(connection),
      closed: () => {
        connection.withdraw?.();
        connection.adverts.forEach((withdraw) => withdraw());
        connection.dropReport?.();
        if (subscriber) this.subscribers.delete(subscriber);
        if (peer) {
          this.noteSeen(peer.nodeId);
          if (!this.members.connected(peer.nodeId)) this.reports.delete(peer.nodeId);
        }
      },
    };
  }

  /** Tells the members of `projectId` (of every project when undefined) which relays serve it now. */
  private announceRelays(projectId: string | undefined): void {
    for (const project of this.subscribers.projects()) {
      if (projectId === undefined || project === projectId)
        this.subscribers.tell(project, { event: 'relays', relays: this.relays.relaysOf(project) });
    }
  }

  private noteSeen(nodeId: string): void {
    const write = this.options.service
      .noteSeen(nodeId)
      .catch((error: Error) => {
        this.options.log?.(`controller: could not note that ${nodeId} was seen: ${error.message}`);
      })
      .finally(() => this.seenWrites.delete(write));
    this.seenWrites.add(write);
  }

  /**
   * Takes a member out (see ControllerService.revoke), then at once: its connections close (what it
   * announced or advertised is withdrawn with them), every member of the project hears of it, and the
   * relay on this port cuts its splices. The one place a revocation happens.
   */
  async revoke(admin: PeerIdentity, nodeId: string, reason: string): Promise<Revocation> {
    const revocation = await this.options.service.revoke(admin, nodeId, reason);
    await this.enforce(revocation, { by: admin.nodeId, reason });
    this.options.log?.(
      `controller: ${nodeId} of project ${revocation.projectId} revoked by ${admin.nodeId}` +
        (reason ? ` (${JSON.stringify(reason)})` : ''),
    );
    return revocation;
  }

  /**
   * Revocations a member returned that this controller had forgotten (it was restored from a backup
   * older than them), each proven to be its own: enforced as a revocation made now is.
   */
  private async takeBack(reporter: PeerIdentity, entries: readonly RevokedEntry[]): Promise<number> {
    const taken = await this.options.service.takeBackRevocations(reporter, entries);
    for (const revocation of taken) {
      await this.enforce(revocation, { returned_by: reporter.nodeId, until: revocation.entry.until });
      this.options.log?.(
        `controller: ${revocation.entry.nodeId} of project ${revocation.projectId} revoked again: ` +
          `${reporter.nodeId} returned a revocation this controller made before it was restored`,
      );
    }
    return taken.length;
  }

  /**
   * What a revocation does at once: the member's connections close (what it announced or advertised
   * is withdrawn with them), every member of the project hears of it, the relay on this port cuts its
   * splices; then the trail records it with `details`.
   */
  private async enforce(revocation: Revocation, details: AuditDetails): Promise<void> {
    const { nodeId } = revocation.entry;
    const liveSessions = this.reports.get(nodeId)?.liveSessions ?? null;
    const { told, splicesCut } = this.cut(revocation);
    // Recorded once every holder has been told: the trail never delays the cut.
    await this.options.service.audit.record(revocation.projectId, 'revoked', [nodeId, revocation.revokedBy], {
      ...details,
      told,
      live_sessions: liveSessions,
      splices_cut: splicesCut,
    });
  }

  /**
   * A revocation another replica made and recorded (its notice): enforced here as at once as there,
   * for the connections, members and splices this replica holds.
   */
  async enforceElsewhere(revocation: Revocation): Promise<void> {
    if (this.revokedHere.has(revocation.entry.nodeId)) return;
    await this.options.service.noteRevokedElsewhere(revocation.entry.nodeId);
    this.cut(revocation);
  }

  private cut(revocation: Revocation): { told: number; splicesCut: number } {
    const { nodeId } = revocation.entry;
    this.revokedHere.add(nodeId);
    this.members.closeMember(nodeId);
    const told = this.subscribers.tell(revocation.projectId, { event: 'revoked', revoked: [revocation.entry] });
    this.options.service.tally.revocationsPushed(told);
    return { told, splicesCut: this.options.onRevoked?.(revocation) ?? 0 };
  }

  /**
   * Every member of the administrator's project, with what this replica knows of their connections: its
   * own, and those of members connected to another replica that announced a relay or reported portals.
   */
  membersOf(admin: PeerIdentity): Promise<MemberInfo[]> {
    const { projectId } = admin;
    const elsewhere = new Set(this.announcements.portals.of(projectId).map((report) => report.node));
    for (const relay of this.relays.relaysOf(projectId)) elsewhere.add(relay.id);
    return this.options.service.members(admin, (id) => this.presence(id, elsewhere));
  }

  /** The presence of a member as `project members` shows it (its live sessions only when connected here). */
  private presence(nodeId: string, elsewhere: ReadonlySet<string>): MemberPresence {
    const here = this.members.connected(nodeId);
    const liveSessions = here ? (this.reports.get(nodeId)?.liveSessions ?? null) : null;
    return { connected: here || elsewhere.has(nodeId), liveSessions };
  }

  /** An anonymous peer's `count`-th request on its connection. */
  private anonymousAllowed(source: string, count: number): boolean {
    if (count <= this.limits.anonymousRequests && this.anonymousRate.take(source)) return true;
    this.anonymousRefused += 1;
    return false;
  }

  /** The answers to one connection's requests. */
  private handlers(connection: Connection): OperationHandlers<ControllerOperations> {
    const { source } = connection;
    const service = this.options.service;
    // A member revoked while its connection was open is refused on it (the connection is closing too).
    const peer = connection.peer && !this.revokedHere.has(connection.peer.nodeId) ? connection.peer : undefined;
    const member = (): PeerIdentity => {
      if (!peer || this.revokedHere.has(peer.nodeId)) throw new NotAuthenticated();
      return peer;
    };
    return {
      ping: () => ({}),
      'admin-enroll': ({ code, request, project }) => service.adminEnroll(code, request, project),
      enroll: ({ ticket, secret, request }) => service.enroll(ticket, secret, request),
      renew: ({ request }) => service.renew(member(), request),
      'reissue-challenge': () => service.reissueChallenge(source),
      reissue: ({ certificate, request }) => service.reissue(certificate, request),
      ticket: async (body) => ({ ticket: await service.issueTicket(member(), body) }),
      project: async () => ({ project: await service.project(member()) }),
      ca: async () => ({
        certificate: (await service.authorityOf(member().projectId)).certificate,
      }),
      relays: () => ({ relays: this.relays.relaysOf(member().projectId) }),
      'relay-announce': (body) => announceRelay(this.announcements, connection, member(), body),
      advertise: (body) => advertise(this.announcements, connection, member(), body),
      unadvertise: ({ via }) => {
        member();
        connection.adverts.get(via)?.();
        connection.adverts.delete(via);
        return {};
      },
      inlets: () => ({ inlets: this.adverts.forMember(member()) }),
      members: async () => ({ members: await this.membersOf(member()) }),
      revoke: async ({ member: nodeId, reason }) => ({
        revoked: (await this.revoke(member(), nodeId, reason)).entry,
      }),
      grant: async ({ member: nodeId, relay }) => {
        const { added, relays } = await service.grantRelays(member(), nodeId, relay);
        return { member: nodeId, added, relays };
      },
      revocations: async () => ({ revoked: await service.revocationsOf(member().projectId) }),
      'revocations-return': async ({ revoked }) => ({ taken: await this.takeBack(member(), revoked) }),
      tickets: async () => ({ tickets: await service.tickets(member()) }),
      'ticket-cancel': async ({ ticket }) => {
        await service.cancelTicket(member(), ticket);
        return {};
      },
      'console-link': () => consoleLinkAnswer(this.options.consoleLink?.(member())),
      'member-report': ({ liveSessions }) => {
        const { nodeId, relayNode } = member();
        this.reports.set(nodeId, { liveSessions: readLiveSessions(liveSessions), relay: relayNode });
        return {};
      },
      'portal-report': (body) => takePortalReport(this.announcements.portals, connection, member(), body),
      ...auditHandlers(service.audit, service.reports, () => member()),
    };
  }
}
