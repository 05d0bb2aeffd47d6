/**
 * The sockets of the splices each member is part of, as inlet or outlet, so that the splices of a
 * member revoked from its project can be cut at once. Each socket leaves when it closes.
 */
import type { Socket } from 'node:net';
import { resetSocket } from '../wire/socket-reset.ts';

export class MemberSplices {
  private readonly byMember = new Map<string, Set<Socket>>();

  /** A splice between `members` (its inlet and its outlet) carried on `sockets`. */
  add(members: readonly string[], sockets: readonly Socket[]): void {
    for (const nodeId of new Set(members)) {
      const set = this.byMember.get(nodeId) ?? new Set<Socket>();
      this.byMember.set(nodeId, set);
      for (const socket of sockets) {
        set.add(socket);
        socket.once('close', () => {
          set.delete(socket);
          if (set.size === 0 && this.byMember.get(nodeId) === set) this.byMember.delete(nodeId);
        });
      }
    }
  }

  /** Resets every splice `nodeId` is part of (both nodes see an abort, never a clean end); returns how many. */
  cut(nodeId: string): number {
    const sockets = [...(this.byMember.get(nodeId) ?? [])];
    for (const socket of sockets) resetSocket(socket);
    return sockets.length / 2;
  }
}
