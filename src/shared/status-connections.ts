/**
 * The connections a status server holds, and which gives way when a new one arrives at the cap. Any
 * local process can open connections and send nothing, or send headers a byte at a time: refusing
 * newcomers at the cap (what net.Server's maxConnections does) let such a process blind every health
 * probe and scrape for as long as it held them. So a newcomer is always taken, and the oldest connection
 * that is not being answered gives way: one whose headers are incomplete or one idle between requests.
 * A probe sends its request at once and is answered from memory, so it is seldom waiting and never for
 * long. Only when every connection is being answered does the oldest of them give way.
 */
import type { Socket } from 'node:net';

export class StatusConnections {
  /** In accept order: the first entry is the oldest. The value counts requests being answered. */
  private readonly held = new Map<Socket, number>();
  private evictedCount = 0;

  constructor(private readonly cap: number) {}

  /** Takes a new connection, making room by closing the connection that gives way. */
  take(socket: Socket): void {
    while (this.held.size >= this.cap) {
      const yielding = this.yielding();
      this.held.delete(yielding);
      this.evictedCount += 1;
      yielding.destroy();
    }
    this.held.set(socket, 0);
    socket.once('close', () => this.held.delete(socket));
  }

  /** A request on the connection has its headers and is being answered. */
  answering(socket: Socket): void {
    const count = this.held.get(socket);
    if (count !== undefined) this.held.set(socket, count + 1);
  }

  /** The request is answered (or its connection gone): the connection waits again. */
  answered(socket: Socket): void {
    const count = this.held.get(socket);
    if (count !== undefined) this.held.set(socket, Math.max(0, count - 1));
  }

  get size(): number {
    return this.held.size;
  }

  /** Connections closed to make room for newer ones since the start. */
  get evicted(): number {
    return this.evictedCount;
  }

  private yielding(): Socket {
    for (const [socket, answering] of this.held) if (answering === 0) return socket;
    return this.held.keys().next().value as Socket;
  }
}
