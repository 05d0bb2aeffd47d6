/**
 * Bytes a relay splices, each way, without a look at any chunk: a splice half's socket counts what it
 * reads, so the total is what closed halves read plus what open ones have read so far, summed when
 * scraped. The splice preamble, read before the half was taken, is not counted.
 */
import type { Socket } from 'node:net';
import type { SpliceRole } from '../wire/protocol.ts';

export class SplicedBytes {
  private readonly closed: Record<SpliceRole, number> = { inlet: 0, outlet: 0 };
  private readonly open = new Map<Socket, { readonly role: SpliceRole; readonly before: number }>();

  /**
   * Counts what `socket`, a splice half taken by the relay, reads from now on; `unread` bytes read
   * already were given back to it (they follow the preamble, and are spliced).
   */
  track(socket: Socket, role: SpliceRole, unread: number): void {
    const entry = { role, before: socket.bytesRead - unread };
    this.open.set(socket, entry);
    socket.once('close', () => {
      this.open.delete(socket);
      this.closed[role] += socket.bytesRead - entry.before;
    });
  }

  /** Bytes read from each role's halves: what the inlets sent to outlets, and the outlets to inlets. */
  totals(): Record<SpliceRole, number> {
    const totals = { ...this.closed };
    for (const [socket, { role, before }] of this.open) totals[role] += socket.bytesRead - before;
    return totals;
  }
}
