/**
 * What the session's streams (src/wire/mux.ts) leave to their users: a warm stream's two sockets
 * joined both ways, and heartbeats that find a peer gone quiet.
 */
import type { Socket } from 'node:net';
import { pump } from './pump.ts';
import { resetSocket } from './socket-reset.ts';

/**
 * Joins two sockets both ways for a warm stream: a half-close passes through (the other side's end),
 * and an error on either side destroys both.
 */
export function joinSockets(a: Socket, b: Socket): Promise<void> {
  pump(a, b);
  pump(b, a);
  const closed = (socket: Socket) =>
    new Promise<void>((resolve) =>
      socket.once('close', (hadError: boolean) => {
        // An abort on either side reaches the other as a reset, not as an end.
        if (hadError) {
          resetSocket(a);
          resetSocket(b);
        }
        resolve();
      }),
    );
  for (const socket of [a, b]) socket.on('error', () => socket.destroy());
  // A side that closed cleanly has sent its end through the pipe; the other closes when its own peer
  // ends. Destroying it here could drop bytes still queued for the kernel.
  return Promise.all([closed(a), closed(b)]).then(() => undefined);
}

/** A session that can be pinged: the multiplexer's. */
export interface Pingable {
  readonly destroyed: boolean;
  readonly closed: boolean;
  ping(callback: (error: Error | null) => void): boolean;
  destroy(error?: Error): void;
  once(event: 'close', listener: () => void): unknown;
}

/**
 * Pings the session every `intervalMs`; a ping unanswered within `timeoutMs` means the peer (or the
 * path to it) is gone: `onLost` runs (to close the peer's warm streams too) and the session is
 * destroyed so that its streams and their sockets close.
 */
export function keepAlive(session: Pingable, intervalMs: number, timeoutMs: number, onLost: () => void = () => undefined): void {
  const lost = (error: Error) => {
    onLost();
    session.destroy(error);
  };
  const timer = setInterval(() => {
    if (session.destroyed || session.closed) return;
    const deadline = setTimeout(() => lost(new Error('heartbeat lost')), timeoutMs);
    const sent = session.ping((error) => {
      clearTimeout(deadline);
      if (error) lost(error);
    });
    if (!sent) clearTimeout(deadline);
  }, intervalMs);
  timer.unref();
  session.once('close', () => clearInterval(timer));
}
