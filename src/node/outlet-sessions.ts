/**
 * The sessions and warm streams inlets open to the outlet: each dial a relay passes on (answered
 * within bounds per member and in all) and each connection the outlet dials to an inlet's direct path
 * goes through the end-to-end TLS and verdicts, then becomes a session, whose streams go to the
 * target, or a warm stream, which waits for its one client.
 */
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import {
  acceptOutletChannel,
  adoptOutletSession,
  isGuardRefusal,
  peerStanding,
  PeerRevoked,
  PeerRefused,
  type Channel,
} from '../wire/e2e-session.ts';
import { PeerCertificateExpired } from '../wire/peer-guard.ts';
import { sessionOver } from '../wire/session-credentials.ts';
import {
  GoAwayCode,
  goAwayNames,
  MuxSession,
  RefusalCode,
  SessionClosed,
  SessionProtocolError,
  type IncomingStream,
} from '../wire/mux.ts';
import { dialSplice } from '../wire/splice.ts';
import { HeartbeatLost, keepAlive } from '../wire/tunnel-streams.ts';
import { DirectDialer } from './direct-dialer.ts';
import type { LogThrottle } from './log-throttle.ts';
import { CounterMap } from '../shared/counter-map.ts';
import { outletLimits } from './outlet-limits.ts';
import type { OutletRefusals } from './outlet-refusals.ts';
import type { TargetConnections } from './outlet-targets.ts';
import type { PartContext } from './part.ts';
import type { RelayLink } from './relay-links.ts';
import type { Path } from './warm-streams.ts';

export interface OutletSessionsOptions extends PartContext {
  /** The outlet's allow, which the end-to-end verdicts check inlets against. */
  readonly allow: string;
  /** Where the streams of the sessions go. */
  readonly targets: TargetConnections;
  readonly refusals: OutletRefusals;
  /** Warnings that a flood would repeat thousands of times a second. */
  readonly throttled: LogThrottle;
}

export class OutletSessions {
  /** Dials the direct paths inlets advertise; what it dials is carried here. */
  readonly dialer: DirectDialer;
  private readonly sessions = new Set<MuxSession>();
  /** Warm streams waiting for their client: closed when the outlet stops accepting. */
  private readonly waitingStreams = new Set<Socket>();
  private stopping = false;
  /** Draining: no new session or warm stream, while what the inlets opened before they heard is served. */
  private leaving = false;
  /** End-to-end handshakes under way, on either path. */
  private handshaking = 0;
  /** Warm streams by the inlet node they came from: closed with it when its session's heartbeat is lost. */
  private readonly streamsByPeer = new Map<string, Set<Socket>>();
  /** Dials being answered (splice joined, end-to-end handshake and verdicts under way), by the node that asked. */
  private readonly handshakes = new CounterMap<string>();
  /** Warm streams waiting for their first client, by the node they came from. */
  private readonly unopenedByPeer = new CounterMap<string>();
  private handshakesTotal = 0;
  private dialsDeclined = 0;
  /** Direct sessions by the inlet node they come from. */
  private readonly directSessions = new Map<string, Set<{ close(): void }>>();

  constructor(private readonly options: OutletSessionsOptions) {
    this.dialer = new DirectDialer({
      logger: options.logger,
      carry: (raw, inlet) =>
        this.carryRaw(raw, 'direct').catch((error: unknown) => {
          // Other failures on the direct path leave the inlet on the relay; the dialer says so.
          if (error instanceof PeerRefused || error instanceof PeerRevoked)
            options.refusals.noteSessionFailure(error, inlet);
          if (isGuardRefusal(error)) options.refusals.logRefusal(error.message);
          throw error;
        }),
      holding: (inlet) => ({
        session: (this.directSessions.get(inlet)?.size ?? 0) > 0,
        waiting: this.unopenedByPeer.get(inlet),
      }),
    });
  }

  /** Whether the outlet stopped taking sessions, warm streams and streams. */
  get stopped(): boolean {
    return this.stopping;
  }

  /**
   * Stops taking sessions, warm streams and streams (a stream opened now is refused) and closes the
   * warm streams no client uses.
   */
  stopAccepting(): void {
    this.stopping = true;
    this.dialer.stop();
    for (const socket of this.waitingStreams) socket.destroy();
    // Each session refuses new streams and ends with its last one (an idle one at once), so its
    // inlet opens another, elsewhere if it can, while the streams it carries finish.
    for (const session of this.sessions) session.close();
  }

  /**
   * The first step of a drain: takes no new session or warm stream and tells each inlet, with a
   * go-away, to open nothing more here, while still serving what they opened before they heard.
   * Settles once every inlet has heard (its answer to a ping sent after the go-away) and the warm
   * streams still waiting were closed by their inlets or taken by a client, or after `withinMs`.
   */
  async leave(withinMs: number): Promise<void> {
    this.leaving = true;
    this.dialer.stop();
    const deadline = Date.now() + withinMs;
    const until = async (done: () => boolean) => {
      while (!done() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    };
    // The handshakes under way end first: a session among them is told at once, a warm stream served.
    await until(() => this.handshaking === 0);
    for (const session of this.sessions) session.notice();
    // The go-away leaves on the next turn of the event loop; a ping written after it follows it.
    await new Promise((resolve) => setImmediate(resolve));
    const heard = [...this.sessions].map(
      (session) =>
        new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, withinMs);
          const done = () => {
            clearTimeout(timer);
            resolve();
          };
          if (!session.ping(done)) done();
        }),
    );
    await Promise.all(heard);
    // An inlet closes the warm streams it holds once it hears; one still waiting after that is a client's.
    await until(() => this.waitingStreams.size === 0);
  }

  /** Closes the sessions and the warm streams, used or waiting. */
  destroyAll(): void {
    for (const session of this.sessions) session.destroy();
    for (const streams of this.streamsByPeer.values()) for (const socket of streams) socket.destroy();
  }

  describe() {
    return {
      sessions: this.sessions.size,
      sessions_direct: [...this.directSessions.values()].reduce((sum, set) => sum + set.size, 0),
      direct_paths: this.dialer.describe().length,
      handshakes_pending: this.handshakesTotal,
      dials_declined: this.dialsDeclined,
    };
  }

  /**
   * Answers a dial unless the node that asked has too many handshakes under way with this outlet, or
   * all of them together do: a member's flood then costs a bounded number of sockets and handshakes,
   * and the relay takes an outlet that leaves dials unanswered out of the choice only while others can
   * answer.
   */
  onDial(link: RelayLink, splice: string, secret: string, from: string): void {
    if (this.stopping || this.leaving) return;
    const mine = this.handshakes.get(from);
    if (mine >= outletLimits.handshakesPerMember || this.handshakesTotal >= outletLimits.handshakesTotal) {
      this.dialsDeclined += 1;
      this.options.refusals.noteRefused(from, [], 1, 'declined dials (too many handshakes under way) from');
      return;
    }
    this.handshakes.add(from);
    this.handshakesTotal += 1;
    void this.answerDial(link.entry.address, splice, secret, from).finally(() => {
      this.handshakesTotal -= 1;
      this.handshakes.remove(from);
    });
  }

  private async answerDial(relay: string, splice: string, secret: string, from: string): Promise<void> {
    const { refusals } = this.options;
    try {
      await this.carryRaw(await dialSplice(relay, splice, 'outlet', secret, true), 'relay');
    } catch (error) {
      refusals.noteSessionFailure(error, from);
      if (error instanceof PeerRefused || isGuardRefusal(error)) refusals.logRefusal(error.message);
      else this.options.logger.debug(`outlet: session failed: ${(error as Error).message}`);
    }
  }

  /**
   * The end-to-end TLS and verdicts on a raw connection to an inlet (a relay splice, or one this
   * outlet dialled directly), then what the inlet asked for: a session or a warm stream.
   */
  private async carryRaw(raw: Socket, path: Path): Promise<void> {
    const { logger, metrics } = this.options;
    if (this.stopping || this.leaving) {
      raw.destroy();
      return;
    }
    // A handshake begun before a drain is seen through (leave() waits for it): its inlet may take it meanwhile.
    this.handshaking += 1;
    const channel = await acceptOutletChannel(raw, this.options.credentials(), this.options.allow).finally(
      () => (this.handshaking -= 1),
    );
    if (this.stopping) {
      channel.socket.destroy();
      return;
    }
    if (channel.mode === 'stream') {
      void this.serveStream(channel, path);
      return;
    }
    const inlet = channel.peer?.nodeId ?? '';
    const onStream = (stream: IncomingStream) => {
      // A client of the inlet's: used warm streams are replaced only once its clients pause, as the
      // inlet's own refills are.
      if (path === 'direct') this.dialer.nudge(inlet);
      this.onStream(stream, path, inlet, channel.socket, session);
    };
    // The streams a session holds are bounded by the target connections its inlet may have (onStream).
    const { session } = adoptOutletSession(channel, { onStream });
    this.sessions.add(session);
    if (this.leaving) session.notice();
    metrics.sessions.inc({ part: 'outlet', path });
    metrics.sessionsOpen.inc({ part: 'outlet', path });
    logger.debug(`outlet: session from inlet ${inlet || '?'}, ${path === 'direct' ? 'direct' : 'through a relay'}`);
    if (path === 'direct') {
      const held = this.directSessions.get(inlet) ?? new Set();
      held.add(session);
      this.directSessions.set(inlet, held);
    }
    const closePeerStreams = () => {
      for (const socket of this.streamsByPeer.get(inlet) ?? [])
        socket.destroy(new HeartbeatLost('the inlet stopped answering'));
    };
    if (this.options.heartbeat)
      keepAlive(session, this.options.heartbeat.intervalMs, this.options.heartbeat.timeoutMs, closePeerStreams);
    session.once('close', (why?: Error) => {
      this.sessions.delete(session);
      metrics.sessionsOpen.dec({ part: 'outlet', path });
      // A session closed for breaking the protocol (a flood of opens it does not read the answers to,
      // bytes beyond a window) is a member misbehaving: said, a line per member every 10 s at most.
      if (why instanceof SessionProtocolError) {
        this.options.throttled.note(
          `protocol ${inlet}`,
          (count) =>
            `outlet: closed ${count === 1 ? 'a session' : `${count} sessions`} ` +
            `of inlet ${inlet || '?'}: ${why.message}`,
        );
      } else if (why instanceof SessionClosed && why.goAway !== undefined && why.goAway !== GoAwayCode.normal) {
        logger.warn(`outlet: inlet ${inlet || '?'} closed its session: ${goAwayNames[why.goAway]}`);
      }
      const held = this.directSessions.get(inlet);
      if (held?.delete(session)) {
        if (held.size === 0) this.directSessions.delete(inlet);
        this.dialer.nudge(inlet, 'now');
      }
    });
  }

  /**
   * A warm stream waits for its client, then carries it as a session of one stream: its open (with
   * the client's first bytes) dials the target, and its ends and resets are frames, so a connection
   * cut on the way (a relay killed) reaches the target, and the client, as a reset and never as an end.
   */
  private serveStream(channel: Channel, path: Path): void {
    const { socket, peer } = channel;
    const key = peer?.nodeId ?? '';
    // A warm stream waits for its client without a deadline, so a peer may keep only so many waiting.
    const waiting = this.unopenedByPeer.get(key);
    if (waiting >= outletLimits.unopenedPerMember) {
      this.dialsDeclined += 1;
      this.options.refusals.noteRefused(
        key,
        [],
        1,
        `closed warm streams beyond ${outletLimits.unopenedPerMember} waiting from`,
      );
      socket.destroy();
      return;
    }
    this.unopenedByPeer.add(key);
    this.waitingStreams.add(socket);
    let counted = true;
    const uncount = () => {
      if (!counted) return;
      counted = false;
      this.waitingStreams.delete(socket);
      this.unopenedByPeer.remove(key);
      // Used or gone: the direct path dials another to keep the inlet's streams ready.
      this.dialer.nudge(key);
    };
    socket.once('close', uncount);
    const streams = this.streamsByPeer.get(key) ?? new Set<Socket>();
    this.streamsByPeer.set(key, streams);
    streams.add(socket);
    socket.once('close', () => {
      streams.delete(socket);
      if (streams.size === 0) this.streamsByPeer.delete(key);
    });
    const single: MuxSession = sessionOver(socket, 'outlet', {
      maxStreams: 1,
      onStream: (stream) => {
        uncount();
        this.onStream(stream, path, key, socket, single);
        // Its one stream carried, the session ends.
        single.close();
      },
    });
  }

  /**
   * A stream of a session, or a warm stream's one: refused while stopping, else taken to the target.
   * Its inlet is judged again first: one revoked, or whose certificate expired with no renewed one
   * proved, has the stream refused and the session closed, whatever the session was when it opened.
   */
  private onStream(stream: IncomingStream, path: Path, inlet: string, channel: TLSSocket, session: MuxSession): void {
    if (this.stopping) {
      stream.refuse('the outlet is stopping', RefusalCode.goingAway);
      return;
    }
    const standing = peerStanding(channel);
    if (standing) {
      const why =
        standing === 'revoked'
          ? new PeerRevoked(
              `refused a stream of a peer that was revoked from the project (${inlet})`,
              'an administrator revoked it (portal project members says when and why); it stays refused',
              true,
              inlet,
            )
          : new PeerCertificateExpired(inlet);
      stream.refuse(why.message, RefusalCode.refused);
      this.options.refusals.logRefusal(why.message);
      session.destroy(why);
      return;
    }
    this.options.targets.connect(stream, path, inlet);
  }
}
