/**
 * The inlet's warm streams: end-to-end TLS connections to the outlet made ahead of time, each ready
 * for one client, so that a new client costs no handshake. Idle, each is watched (its outlet sends
 * nothing before the client's open, so anything that arrives, or its end, means it is broken).
 * Used ones are replaced once new clients pause: a handshake costs CPU that the clients of a burst
 * should not queue behind; they ride the session meanwhile.
 */
import type { TLSSocket } from 'node:tls';
import { refillQuietMs } from './limits.ts';

/** The path a session or stream takes: the direct connection the outlet dialled, or a relay. */
export type Path = 'direct' | 'relay';

export interface WarmStream {
  readonly socket: TLSSocket;
  readonly path: Path;
}

export class WarmStreamPool {
  private readonly ready: TLSSocket[] = [];
  private readonly paths = new WeakMap<TLSSocket, Path>();
  private readonly watchers = new Map<TLSSocket, () => void>();
  private opening = 0;
  private refill: NodeJS.Timeout | undefined;

  /**
   * `open` makes one stream (undefined when it cannot); `rules.fill` says whether the inlet makes its
   * own now (on the direct path the outlet dials them instead), `rules.keep` whether it keeps one at
   * all (not once stopped, nor without a session).
   */
  constructor(
    readonly wanted: number,
    private readonly open: () => Promise<TLSSocket | undefined>,
    private readonly rules: { readonly fill: () => boolean; readonly keep: () => boolean },
  ) {}

  get size(): number {
    return this.ready.length;
  }

  /** Whether one more stream, being made or made elsewhere, would still be wanted. */
  hasRoom(): boolean {
    return this.ready.length + this.opening < this.wanted;
  }

  /** Counts a stream being made elsewhere (dialled by the outlet) until `made` settles. */
  async making(made: Promise<TLSSocket | undefined>, path: Path): Promise<void> {
    this.opening += 1;
    try {
      const socket = await made;
      if (socket) this.keep(socket, path);
    } finally {
      this.opening -= 1;
    }
  }

  /** Makes streams until `wanted` are ready or being made. */
  fill(): void {
    while (this.rules.fill() && this.hasRoom()) {
      void this.making(this.open(), 'relay');
    }
  }

  /** A stream that is still open, or undefined; the used one is replaced once clients pause. */
  take(): WarmStream | undefined {
    this.fillSoon();
    for (let socket = this.ready.shift(); socket; socket = this.ready.shift()) {
      const watch = this.watchers.get(socket);
      this.watchers.delete(socket);
      if (watch) {
        socket.off('data', watch);
        socket.off('end', watch);
        socket.off('close', watch);
      }
      if (!socket.destroyed && socket.readable && socket.writable) {
        socket.pause();
        return { socket, path: this.paths.get(socket) ?? 'relay' };
      }
    }
    return undefined;
  }

  /**
   * Closes the ready streams that were opened through a relay, unused: once a direct session is in, a
   * new client should not ride the relay for having come first.
   */
  destroyRelayed(): void {
    for (const socket of this.ready.filter((ready) => this.paths.get(ready) !== 'direct')) {
      this.ready.splice(this.ready.indexOf(socket), 1);
      this.watchers.delete(socket);
      socket.destroy();
    }
  }

  /** Closes every ready stream (with `error`, so that whatever waits on one hears why). */
  destroyAll(error?: Error): void {
    clearTimeout(this.refill);
    for (const socket of this.ready.splice(0)) socket.destroy(error);
  }

  private keep(socket: TLSSocket, path: Path): void {
    if (!this.rules.keep()) {
      socket.destroy();
      return;
    }
    const drop = () => {
      const index = this.ready.indexOf(socket);
      if (index >= 0) this.ready.splice(index, 1);
      this.watchers.delete(socket);
      socket.destroy();
    };
    socket.on('data', drop);
    socket.once('end', drop);
    socket.once('close', drop);
    socket.on('error', () => socket.destroy());
    this.watchers.set(socket, drop);
    this.paths.set(socket, path);
    this.ready.push(socket);
  }

  private fillSoon(): void {
    clearTimeout(this.refill);
    this.refill = setTimeout(() => {
      this.refill = undefined;
      this.fill();
    }, refillQuietMs);
  }
}
