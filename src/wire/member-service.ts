/**
 * Serving the members of a project over TLS, as the controller and every relay do: the client's
 * certificate names the member; a member may hold only so many connections at once, and leaves the
 * admission limits once proven (it may then keep its connection as long as it likes). A peer without a
 * member certificate is refused on its first line, or, where the service answers anyone, served one
 * request at a time while the service admits it, and only until its admission deadline. Each connection
 * gets its own handlers (see serveService) and may be pushed events.
 */
import type { X509Certificate } from 'node:crypto';
import type { TLSSocket } from 'node:tls';
import type { PeerIdentity } from '../pki/identity.ts';
import { helloOf, type Fields, type OperationHandlers, type ServiceName } from './protocol.ts';
import { serveService, type AnsweredRequest } from './service-connection.ts';
import { sourceKeyOf } from './source-key.ts';
import { CounterMap } from '../shared/counter-map.ts';

export interface MemberLimits {
  /** Requests a member's connection may have in flight. */
  readonly memberInFlight: number;
  /** Connections one member may hold at once. */
  readonly memberConnections: number;
  /** Unread answers and events a peer may leave queued before its connection is closed. */
  readonly maxQueuedBytes: number;
}

/** A member's connection, as its handlers see it. */
export interface MemberConnection<Event> {
  readonly peer: PeerIdentity;
  /** Its source as per-source bounds count it: an IPv4 address, an IPv6 /64. */
  readonly source: string;
  /** Sends `event` on this connection. */
  readonly push: (event: Event) => void;
}

/** What one connection is served with: its handlers, and what to undo when it closes. */
export interface Session<Ops> {
  readonly handlers: OperationHandlers<Ops>;
  readonly closed?: () => void;
}

/** Peers without a member certificate: refused on their first line, or answered while `admit` allows. */
export type AnonymousPeers<Ops> =
  | { readonly refusal: string }
  | {
      /** Whether the `count`-th request of a connection from `source` is read; false closes it. */
      readonly admit: (source: string, count: number) => boolean;
      readonly open: (connection: { readonly source: string }) => Session<Ops>;
    };

export interface MemberServiceOptions<Ops, Event> {
  readonly service: ServiceName;
  readonly fields: Fields<Ops>;
  /** The member a client certificate proves (chains to its project's CA, valid now), or undefined. */
  readonly verifyPeer: (certificate: X509Certificate | undefined) => Promise<PeerIdentity | undefined>;
  readonly limits: MemberLimits;
  /** Serves a member's connection. */
  readonly open: (connection: MemberConnection<Event>) => Session<Ops>;
  readonly anonymous: AnonymousPeers<Ops>;
  readonly log?: (line: string) => void;
  /** Told of every request once it is answered, a member's or an anonymous peer's. */
  readonly observe?: (answered: AnsweredRequest) => void;
}

/** How the log names a connection refused to a member that holds too many. */
const refusedConnection: Record<ServiceName, string> = {
  control: 'controller: refused a control connection',
  relay: 'relay: refused a connection',
};

export class MemberService<Ops, Event> {
  private readonly members: MemberConnections;
  private readonly connections = new Set<TLSSocket>();
  /** Each member's connections, so that a revoked member's can be closed. */
  private readonly byMember = new Map<string, Set<TLSSocket>>();
  private refused = 0;

  constructor(private readonly options: MemberServiceOptions<Ops, Event>) {
    this.members = new MemberConnections(options.limits.memberConnections);
  }

  /** Connections refused to members that held as many as they may, since the start. */
  get refusedMemberConnections(): number {
    return this.refused;
  }

  /** Connections of members open now. */
  get openMemberConnections(): number {
    return this.members.total;
  }

  /**
   * Serves a connection of this service once its TLS handshake is done; `release` takes it out of the
   * admission limits.
   */
  async serve(socket: TLSSocket, release: () => void): Promise<void> {
    const peer = await this.options.verifyPeer(socket.getPeerX509Certificate()).catch(() => undefined);
    if (socket.destroyed) return;
    if (peer) this.serveMember(socket, peer, release);
    else this.serveAnonymous(socket);
  }

  /** Closes every connection this service serves. */
  closeConnections(): void {
    for (const socket of this.connections) socket.destroy();
  }

  /** Closes every connection of the member `nodeId` (revoked): what it registered goes with them. */
  closeMember(nodeId: string): number {
    const sockets = [...(this.byMember.get(nodeId) ?? [])];
    for (const socket of sockets) socket.destroy();
    return sockets.length;
  }

  /** Whether the member `nodeId` holds a connection now. */
  connected(nodeId: string): boolean {
    return this.members.count(nodeId) > 0;
  }

  private serveMember(socket: TLSSocket, peer: PeerIdentity, release: () => void): void {
    if (!this.members.admit(peer.nodeId, socket)) {
      const held = this.members.count(peer.nodeId);
      this.refused += 1;
      this.options.log?.(`${refusedConnection[this.options.service]} of ${peer.nodeId}: it holds ${held} already`);
      socket.destroy();
      return;
    }
    // A member may hold its connection open indefinitely; an anonymous peer only until its deadline.
    release();
    const held = this.byMember.get(peer.nodeId) ?? new Set<TLSSocket>();
    this.byMember.set(peer.nodeId, held.add(socket));
    socket.once('close', () => {
      held.delete(socket);
      if (held.size === 0 && this.byMember.get(peer.nodeId) === held) this.byMember.delete(peer.nodeId);
    });
    const source = sourceKeyOf(socket.remoteAddress);
    this.run(socket, this.options.limits.memberInFlight, undefined, (push) =>
      this.options.open({ peer, source, push }),
    );
  }

  private serveAnonymous(socket: TLSSocket): void {
    const anonymous = this.options.anonymous;
    if ('refusal' in anonymous) {
      socket.end(`${JSON.stringify({ ...helloOf(this.options.service), refused: anonymous.refusal })}\n`);
      return;
    }
    const source = sourceKeyOf(socket.remoteAddress);
    let requests = 0;
    this.run(
      socket,
      1,
      () => anonymous.admit(source, (requests += 1)),
      () => anonymous.open({ source }),
    );
  }

  private run(
    socket: TLSSocket,
    maxInFlight: number,
    admit: (() => boolean) | undefined,
    open: (push: (event: Event) => void) => Session<Ops>,
  ): void {
    this.connections.add(socket);
    // Events are pushed only after serveService has returned: `channel` is set by then.
    const session = open((event) => channel.send(event));
    socket.once('close', () => {
      this.connections.delete(socket);
      session.closed?.();
    });
    const channel = serveService<Ops>(socket, {
      service: this.options.service,
      fields: this.options.fields,
      maxInFlight,
      maxQueuedBytes: this.options.limits.maxQueuedBytes,
      ...(admit ? { admit } : {}),
      handlers: session.handlers,
      ...(this.options.log ? { log: this.options.log } : {}),
      ...(this.options.observe ? { observe: this.options.observe } : {}),
    });
  }
}

/** Counts each member's connections, so that one member may hold only so many at once. */
export class MemberConnections {
  private readonly held = new CounterMap<string>();

  constructor(private readonly limit: number) {}

  /** Counts `socket` for `nodeId` until it closes; false (nothing counted) past the limit. */
  admit(nodeId: string, socket: TLSSocket): boolean {
    if (this.held.get(nodeId) >= this.limit) return false;
    this.held.add(nodeId);
    socket.once('close', () => this.held.remove(nodeId));
    return true;
  }

  count(nodeId: string): number {
    return this.held.get(nodeId);
  }

  get total(): number {
    return this.held.total;
  }
}
