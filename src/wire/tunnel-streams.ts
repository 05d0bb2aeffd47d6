/** What the session's streams (src/wire/mux.ts) leave to their users: heartbeats that find a peer gone quiet. */
import { RuntimeFailure } from '../shared/errors.ts';

/** A peer that went silent for longer than the heartbeat allows: what its session and streams end with. */
export class HeartbeatLost extends RuntimeFailure {
  constructor(message = 'heartbeat lost') {
    super('HEARTBEAT_LOST', message, { hint: 'the node opens another session by itself' });
  }
}

/** A session that can be pinged: the multiplexer's. */
export interface Pingable {
  readonly destroyed: boolean;
  readonly closed: boolean;
  /** When the peer was last heard from (Date.now()), by any frame. */
  readonly lastHeardAt: number;
  ping(callback: (error: Error | null) => void): boolean;
  destroy(error?: Error): void;
  once(event: 'close', listener: () => void): unknown;
}

/**
 * Pings the session every `intervalMs`; a ping unanswered within `timeoutMs`, with nothing else heard
 * from the peer meanwhile, means the peer (or the path to it) is gone: `onLost` runs (to close the
 * peer's warm streams too) and the session is destroyed so that its streams and their sockets close.
 */
export function keepAlive(
  session: Pingable,
  intervalMs: number,
  timeoutMs: number,
  onLost: () => void = () => undefined,
): void {
  const lost = (error: Error) => {
    onLost();
    session.destroy(error);
  };
  const timer = setInterval(() => {
    if (session.destroyed || session.closed) return;
    const sentAt = Date.now();
    // A peer whose frames keep arriving is alive, however late its answer: under load the pong waits
    // behind the data it is sending. Only silence for the whole timeout means it is gone.
    const deadline = setTimeout(() => {
      if (session.lastHeardAt < sentAt) lost(new HeartbeatLost());
    }, timeoutMs);
    const sent = session.ping((error) => {
      clearTimeout(deadline);
      if (error) lost(error);
    });
    if (!sent) clearTimeout(deadline);
  }, intervalMs);
  timer.unref();
  session.once('close', () => clearInterval(timer));
}
