/**
 * What a node checks of a peer besides its certificate and attributes, before any data: that the peer
 * was not revoked from the project, and (when the operator asks for it) that the node's list of revoked
 * members is recent enough to tell. It also keeps every end-to-end connection by the peer's node id, so
 * that the moment a peer is revoked each session, warm stream and direct connection with it is cut.
 */
import type { TLSSocket } from 'node:tls';

/** Why a peer is refused before any data: it was revoked, or this node's list is too old to tell. */
export type GuardRefusal = 'revoked' | 'stale';

export interface PeerGuard {
  /** Resolves when a peer may be judged: the list of revoked members is not being fetched (or waited long enough). */
  ready?(): Promise<void>;
  /** Why the peer `nodeId` is refused now, or undefined when it may go on. */
  refusal(nodeId: string): GuardRefusal | undefined;
  /** Keeps an accepted connection with `nodeId` until it closes. */
  track(nodeId: string, socket: TLSSocket): void;
}

/** The end-to-end connections of a node, by the node id of the peer at the other end. */
export class PeerSockets {
  private readonly byPeer = new Map<string, Set<TLSSocket>>();

  track(nodeId: string, socket: TLSSocket): void {
    if (socket.destroyed) return;
    const set = this.byPeer.get(nodeId) ?? new Set<TLSSocket>();
    this.byPeer.set(nodeId, set.add(socket));
    socket.once('close', () => {
      set.delete(socket);
      if (set.size === 0 && this.byPeer.get(nodeId) === set) this.byPeer.delete(nodeId);
    });
  }

  /** Closes every connection with `nodeId` at once; returns how many there were. */
  cut(nodeId: string): number {
    const sockets = [...(this.byPeer.get(nodeId) ?? [])];
    for (const socket of sockets) socket.destroy();
    return sockets.length;
  }

  /** The connections open now: sessions, warm streams and direct connections. */
  get count(): number {
    let total = 0;
    for (const set of this.byPeer.values()) total += set.size;
    return total;
  }
}
