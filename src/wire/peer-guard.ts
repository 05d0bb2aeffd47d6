/**
 * What a node checks of a peer besides its certificate and attributes, before any data and for as long
 * as a connection with it lasts: that the peer was not revoked from the project, that its certificate
 * (or the renewed one it proved since) has not expired, and (when the operator asks for it) that the
 * node's list of revoked members is recent enough to tell. It keeps every end-to-end connection by the
 * peer's node id from the end of its TLS handshake, verdicts or not, so that the moment a peer is
 * revoked each session, warm stream and direct connection with it is cut, and so is each at the peer's
 * certificate's end unless a renewed one moved it.
 */
import type { TLSSocket } from 'node:tls';
import { PortalError } from '../shared/errors.ts';

/** Why a peer is refused before any data: it was revoked, or this node's list is too old to tell. */
export type GuardRefusal = 'revoked' | 'stale';

export interface PeerGuard {
  /** Resolves when a peer may be judged: the list of revoked members is not being fetched (or waited long enough). */
  ready?(): Promise<void>;
  /** Why the peer `nodeId` is refused now, or undefined when it may go on. */
  refusal(nodeId: string): GuardRefusal | undefined;
  /**
   * Keeps a connection with `nodeId`, whose certificate is valid until `notAfter` (ms since the
   * epoch), from the end of its TLS handshake until it closes.
   */
  track(nodeId: string, socket: TLSSocket, notAfter: number): void;
  /** Until when the connections with `nodeId` may live (undefined: none is kept). */
  expiresAt?(nodeId: string): number | undefined;
  /** `nodeId` proved a renewed certificate valid until `notAfter`: its connections live until then. */
  renewed?(nodeId: string, notAfter: number): void;
}

/** A connection cut because its peer's certificate expired and no renewed one reached this node. */
export class PeerCertificateExpired extends PortalError {
  readonly exitCode = 1 as const;
  constructor(readonly peer: string) {
    super('PEER_CERTIFICATE_EXPIRED', `closed the connections with ${peer}: its certificate expired`, {
      hint: 'a node renews its certificate while the controller is reachable; check the peer node and the controller',
    });
  }
}

/** The longest a timer waits in Node.js; a later deadline is waited for in steps. */
const longestTimerMs = 2 ** 31 - 1;

interface PeerEntry {
  readonly sockets: Set<TLSSocket>;
  /** The latest end of validity the peer proved, by its TLS certificate or a renewed one. */
  notAfter: number;
  timer: NodeJS.Timeout | undefined;
}

export interface PeerSocketsOptions {
  /** Told how many connections were closed with a peer whose certificate expired. */
  readonly onExpired?: (nodeId: string, closed: number) => void;
  /** @default Date.now */
  readonly now?: () => number;
}

/** The end-to-end connections of a node, by the node id of the peer at the other end. */
export class PeerSockets {
  private readonly byPeer = new Map<string, PeerEntry>();
  private readonly now: () => number;

  constructor(private readonly options: PeerSocketsOptions = {}) {
    this.now = options.now ?? Date.now;
  }

  track(nodeId: string, socket: TLSSocket, notAfter = Number.POSITIVE_INFINITY): void {
    if (socket.destroyed) return;
    const entry = this.byPeer.get(nodeId) ?? { sockets: new Set<TLSSocket>(), notAfter, timer: undefined };
    this.byPeer.set(nodeId, entry);
    entry.sockets.add(socket);
    socket.once('close', () => {
      entry.sockets.delete(socket);
      if (entry.sockets.size > 0 || this.byPeer.get(nodeId) !== entry) return;
      clearTimeout(entry.timer);
      this.byPeer.delete(nodeId);
    });
    // A connection made with a renewed certificate proves it as well as a renewal sent in-band would.
    this.moveDeadline(nodeId, entry, Math.max(entry.notAfter, notAfter));
  }

  /** Until when the connections with `nodeId` live, or undefined when none is kept. */
  expiresAt(nodeId: string): number | undefined {
    return this.byPeer.get(nodeId)?.notAfter;
  }

  /** `nodeId` proved a certificate valid until `notAfter`: its connections live until then (never shorter). */
  renewed(nodeId: string, notAfter: number): void {
    const entry = this.byPeer.get(nodeId);
    if (entry && notAfter > entry.notAfter) this.moveDeadline(nodeId, entry, notAfter);
  }

  /** Closes every connection with `nodeId` at once; returns how many there were. */
  cut(nodeId: string): number {
    const entry = this.byPeer.get(nodeId);
    const sockets = [...(entry?.sockets ?? [])];
    for (const socket of sockets) socket.destroy();
    return sockets.length;
  }

  /** The connections open now: sessions, warm streams and direct connections. */
  get count(): number {
    let total = 0;
    for (const entry of this.byPeer.values()) total += entry.sockets.size;
    return total;
  }

  private moveDeadline(nodeId: string, entry: PeerEntry, notAfter: number): void {
    entry.notAfter = notAfter;
    clearTimeout(entry.timer);
    entry.timer = undefined;
    if (!Number.isFinite(notAfter)) return;
    const wait = notAfter - this.now();
    if (wait > 0) {
      entry.timer = setTimeout(() => this.moveDeadline(nodeId, entry, entry.notAfter), Math.min(wait, longestTimerMs));
      entry.timer.unref();
      return;
    }
    // Destroyed without an error: a socket between owners (a warm stream waiting) may have no listener for one.
    const closed = this.cut(nodeId);
    if (closed > 0) this.options.onExpired?.(nodeId, closed);
  }
}
