/**
 * Bytes a part's connections carried, open ones included: what the console shows moving while a
 * client sends. A socket counts in full once it closes, and by what it carried so far until then.
 */
import type { Socket } from 'node:net';

export interface ByteTotals {
  /** Bytes towards the service: read from the inlet's clients, written to the outlet's target. */
  readonly up: number;
  /** Bytes back towards the clients. */
  readonly down: number;
}

/** Which way of a socket goes towards the service. */
export type Upstream = 'read' | 'written';

export class ByteTally {
  private readonly open = new Set<Socket>();
  private closed = { up: 0, down: 0 };

  constructor(private readonly upstream: Upstream) {}

  /** Counts `socket` until `finished` settles, then adds what it carried to the totals. */
  carry(socket: Socket, finished: Promise<unknown>): void {
    this.open.add(socket);
    const done = () => {
      if (!this.open.delete(socket)) return;
      const { up, down } = this.of(socket);
      this.closed = { up: this.closed.up + up, down: this.closed.down + down };
    };
    finished.then(done, done);
  }

  totals(): ByteTotals {
    let { up, down } = this.closed;
    for (const socket of this.open) {
      const carried = this.of(socket);
      up += carried.up;
      down += carried.down;
    }
    return { up, down };
  }

  private of(socket: Socket): ByteTotals {
    return this.upstream === 'read'
      ? { up: socket.bytesRead, down: socket.bytesWritten }
      : { up: socket.bytesWritten, down: socket.bytesRead };
  }
}
