/**
 * The inlet's clients: each connection accepted (after TLS, when the inlet serves it) rides a warm
 * stream when one is ready, else a stream of the session once there is one within the client's wait;
 * otherwise it is refused with a reset.
 */
import type { Socket } from 'node:net';
import { peerStanding } from '../wire/e2e-session.ts';
import { ClientLeft, SessionGoneAway } from '../wire/mux.ts';
import { sessionOver } from '../wire/session-credentials.ts';
import { resetSocket } from '../wire/socket-reset.ts';
import type { PortalAudit } from './audit-sink.ts';
import type { ClientTls } from './client-tls.ts';
import type { InletCounters } from './inlet-counters.ts';
import type { InletPool } from './inlet-pool.ts';
import type { SessionKeeper, StreamOrigin } from './inlet-session-keeper.ts';
import type { Path } from './warm-streams.ts';
import type { Logger } from './logger.ts';
import { streamAnswerTimeoutMs } from './limits.ts';

export interface InletClientsOptions {
  /** The outlets clients go to, each with its warm streams and session. */
  readonly pool: InletPool;
  readonly counters: InletCounters;
  readonly logger: Logger;
  /** TLS served to clients; none: plain TCP. */
  readonly clientTls: ClientTls | undefined;
  /** How long a new client waits for a session before it is refused. */
  readonly clientWaitMs: number;
  /** Where the inlet listens, as a refusal's log line names it. */
  readonly listening: () => string;
  /** Where each client connection carried is recorded once it ends; none: not recorded. */
  readonly audit: PortalAudit | undefined;
}

export class InletClients {
  private readonly clients = new Set<Socket>();
  /** Client connections accepted and not yet closed (their TCP sockets): what a stop waits for. */
  private readonly connected = new Set<Socket>();
  private idleWaiters: (() => void)[] = [];
  /** Warm streams in use, with the keeper of their outlet: closed with its session when its heartbeat is lost. */
  private readonly streaming = new Map<Socket, SessionKeeper>();

  constructor(private readonly options: InletClientsOptions) {}

  /** Client connections open right now. */
  openConnections(): number {
    return this.connected.size;
  }

  /** Settles once no client connection is open. */
  whenIdle(): Promise<void> {
    if (this.connected.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Closes the warm streams in use to `keeper`'s outlet with `error`, and so their clients: it stopped answering. */
  closeStreams(keeper: SessionKeeper, error: Error): void {
    for (const [socket, owner] of this.streaming) if (owner === keeper) socket.destroy(error);
  }

  /** Cuts every client, and the warm streams that carry them. */
  cutAll(): void {
    for (const socket of this.streaming.keys()) socket.destroy();
    // Cut short by the stop: a reset, not an end.
    for (const client of this.clients) resetSocket(client);
  }

  async accept(raw: Socket): Promise<void> {
    this.clients.add(raw);
    this.connected.add(raw);
    raw.once('close', () => {
      this.clients.delete(raw);
      this.connected.delete(raw);
      if (this.connected.size === 0) this.idleWaiters.splice(0).forEach((resolve) => resolve());
    });
    raw.on('error', () => raw.destroy());
    if (!this.options.clientTls) {
      await this.onClient(raw);
      return;
    }
    let socket: Socket;
    try {
      socket = await this.options.clientTls.accept(raw);
    } catch (error) {
      // A client that does not trust the project CA, or asks for another name, ends here; its side says why.
      this.options.logger.debug(`inlet: TLS handshake with a client failed: ${(error as Error).message}`);
      return;
    }
    this.clients.add(socket);
    socket.once('close', () => this.clients.delete(socket));
    socket.on('error', () => socket.destroy());
    await this.onClient(socket);
  }

  private async onClient(socket: Socket): Promise<void> {
    const { pool, counters } = this.options;
    socket.pause();
    const keeper = pool.choose() ?? (await pool.waitForReady(this.options.clientWaitMs));
    if (!keeper || socket.destroyed) {
      this.refuse(socket, 'no session to the outlet');
      return;
    }
    pool.carrying(keeper, socket);
    let taken = keeper.warm.take();
    // An outlet revoked, or whose certificate ran out, gets no client: its channels are closed.
    while (taken && peerStanding(taken.socket)) {
      taken.socket.destroy();
      taken = keeper.warm.take();
    }
    if (taken) {
      const warm = taken.socket;
      this.streaming.set(warm, keeper);
      // A session of one stream: the outlet dials its target on its open, which leaves with the
      // client's first bytes; its end is a frame, so a connection cut on the way is told from an end.
      const single = sessionOver(warm, 'inlet', { maxStreams: 1 });
      const { answered, finished } = single.open(socket, streamAnswerTimeoutMs);
      single.close();
      // Counted once the outlet answers, as a session's stream is: carried, or refused (the client
      // reset already); a client that left first is neither.
      try {
        await answered;
        counters.outletAccepted();
        await this.carry(socket, finished, taken.path, keeper.origins.get(warm));
      } catch (error) {
        if (!(error instanceof ClientLeft)) {
          counters.outletRefused(error as Error);
          pool.failed(keeper);
          this.refuse(socket, (error as Error).message);
        }
        await finished;
      }
      this.streaming.delete(warm);
      return;
    }
    // Its session (at once when it has one: it was ready a moment ago).
    const session = await keeper.waitForSession(this.options.clientWaitMs);
    // The session may have been lost while the client waited (its heartbeat, its relay).
    const standing = session && peerStanding(session.socket);
    if (standing) session.session.destroy();
    if (!session || standing || session.session.destroyed || session.session.closed || socket.destroyed) {
      this.refuse(
        socket,
        standing
          ? `the outlet's ${standing === 'revoked' ? 'member was revoked' : 'certificate expired'}`
          : 'no session to the outlet',
      );
      return;
    }
    // The path of the session the stream rides: another may be current by the time the outlet answers.
    const path = keeper.path === 'direct' ? 'direct' : 'relay';
    const { answered, finished } = session.session.open(socket, streamAnswerTimeoutMs);
    try {
      await answered;
    } catch (error) {
      // A client that left first is no refusal: its close cancelled the stream.
      if (!(error instanceof ClientLeft)) {
        counters.outletRefused(error as Error);
        pool.failed(keeper);
        this.refuse(socket, (error as Error).message);
        // An outlet that stops closes its sessions: the next clients wait for another.
        if (error instanceof SessionGoneAway) keeper.leaveSession(session);
      }
      return;
    }
    counters.outletAccepted();
    await this.carry(socket, finished, path, keeper.origin(session));
  }

  /** Carries a client connection the outlet took, then records it in the audit trail (off the data path). */
  private async carry(socket: Socket, finished: Promise<void>, path: Path, origin: StreamOrigin | undefined) {
    const openedAt = Date.now();
    await this.options.counters.carry(socket, finished, path);
    this.options.audit?.session({
      outlet: origin?.outlet,
      path,
      relay: path === 'relay' ? origin?.relay : undefined,
      openedAt,
      bytesFromClient: socket.bytesRead,
      bytesToClient: socket.bytesWritten,
      ended: socket.errored ? 'cut' : 'closed',
      ...(socket.errored ? { reason: socket.errored.message } : {}),
    });
  }

  private refuse(socket: Socket, reason: string): void {
    const refused = this.options.counters.refused();
    if (refused === 1 || refused % 100 === 0) {
      this.options.logger.warn(`inlet: refused a client on ${this.options.listening()}: ${reason} (${refused} so far)`);
    }
    // A reset, not a clean close with no bytes: the client knows it was not served.
    resetSocket(socket);
  }
}
