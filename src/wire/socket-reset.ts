/**
 * An abort that reaches the peer as one: a TCP reset, so that a client reading to the end cannot take
 * a stream cut short (a relay killed, a session lost, the target's own reset) for a whole one.
 */
import type { Socket } from 'node:net';

/** Resets `socket` (RST, not FIN); a TLS socket, whose handle cannot reset, is destroyed instead. */
export function resetSocket(socket: Socket): void {
  if (socket.destroyed) return;
  // Ended and not yet flushed: Node 20 leaves the handle of such a socket open after a reset.
  if (socket.writableEnded && !socket.writableFinished) {
    socket.destroy();
    return;
  }
  try {
    socket.resetAndDestroy();
  } catch {
    // ERR_INVALID_HANDLE_TYPE: a TLS socket, or one not connected yet.
    socket.destroy();
  }
}
