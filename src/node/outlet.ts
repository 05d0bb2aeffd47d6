/**
 * The outlet: registers its relay name on every relay of the project (again after every reconnect),
 * answers each dial by joining the splice on that relay and accepting the inlet's end-to-end session,
 * and connects each stream of those sessions, and each warm stream, to its target. Inlets
 * that advertise a direct path (through the controller) are dialled directly as well; their sessions
 * then run on those connections, with the same mutual TLS and allow checks.
 */
import { connect as connectTcp, type NetConnectOpts, type Socket } from 'node:net';
import { parseHostPort, type HostPort, socketHost } from '../shared/address.ts';
import { PortalError } from '../shared/errors.ts';
import { dataPathHighWaterMark } from '../shared/socket-tuning.ts';
import { acceptOutletChannel, adoptOutletSession, PeerRefused, type Channel } from '../wire/e2e-session.ts';
import { MuxSession, type IncomingStream } from '../wire/mux.ts';
import type { RelayEvent } from '../wire/protocol.ts';
import { dialSplice } from '../wire/splice.ts';
import { keepAlive } from '../wire/tunnel-streams.ts';
import type { PartContext, PartStatus } from './part.ts';
import type { RelayLink } from './relay-links.ts';
import { DirectDialer, outletDials } from './direct-dialer.ts';
import type { Path } from './warm-streams.ts';
import type { NodeControl } from './standing-channel.ts';
import type { ControllerEvent, InletAdvert } from '../wire/protocol.ts';
import { connectTargetTls } from './target-tls.ts';
import { ConnectionCounter, defaultConnectionBounds, type ConnectionBounds } from './connection-bounds.ts';
import { LogThrottle } from './log-throttle.ts';
import { FailureStreak } from './failure-streak.ts';
import { RecentRefusals } from './refusals.ts';

/** What dials may cost an outlet at once. */
export const outletLimits = {
  handshakesPerMember: 32,
  handshakesTotal: 128,
  /** Warm streams a peer may keep waiting for their first client: twice the most an inlet keeps (PORTAL_WARM_STREAMS, 16). */
  unopenedPerMember: 32,
} as const;

/** How long a connection to the target may take before it counts as failed (the inlet's client waits as long). */
export const targetConnectTimeoutMs = 10_000;

export interface OutletOptions extends PartContext {
  readonly relay: string;
  readonly to: string;
  readonly allow: string;
  /** Connect to the target over TLS (SNI and verification against the system trust store). */
  readonly tls?: boolean;
  /** The controller, which tells the outlet the direct paths of its inlets. */
  readonly control?: NodeControl;
  /** Called once if a relay refuses the registration for good (a relay name the ticket does not grant). */
  readonly onFatal: (error: PortalError) => void;
  /** Target connections held at once, per inlet node and in all. @default defaultConnectionBounds */
  readonly connectionBounds?: ConnectionBounds;
}

export class Outlet {
  status: PartStatus = 'starting';
  private readonly target: HostPort;
  private readonly sessions = new Set<{ close(): void; destroy(): void }>();
  private readonly sockets = new Set<Socket>();
  private idleWaiters: (() => void)[] = [];
  /** Warm streams waiting for their client: closed when the outlet stops accepting. */
  private readonly waitingStreams = new Set<Socket>();
  private stopping = false;
  /** Warm streams by the inlet node they came from: closed with it when its session's heartbeat is lost. */
  private readonly streamsByPeer = new Map<string, Set<Socket>>();
  private connections = { total: 0, active: 0, failed: 0 };
  private lastRefusal = { message: '', at: 0 };
  /** Dials being answered (splice joined, end-to-end handshake and verdicts under way), by the node that asked. */
  private readonly handshakes = new Map<string, number>();
  /** Warm streams waiting for their first client, by the node they came from. */
  private readonly unopenedByPeer = new Map<string, number>();
  private handshakesTotal = 0;
  private dialsDeclined = 0;
  /** The relays this outlet is registered on, by relay id. */
  private readonly registeredOn = new Set<string>();
  /** Direct sessions by the inlet node they come from. */
  private readonly directSessions = new Map<string, Set<{ close(): void }>>();
  private readonly dialer: DirectDialer;
  /** Target connections held, per inlet node: each is a descriptor. */
  private readonly targets: ConnectionCounter;
  /** Streams and warm streams refused because their inlet, or the outlet, held its bound of target connections. */
  private overBound = 0;
  /** Warnings that a flood would repeat thousands of times a second. */
  private readonly throttled: LogThrottle;
  /** Members refused (by the relay or by this outlet) since they were last logged, and when that was. */
  private readonly refusedMembers = new Map<
    string,
    { count: number; attributes: readonly string[]; loggedAt: number }
  >();
  /** Connections to the target that failed since the last one that connected. */
  private readonly targetFailures = new FailureStreak();
  /** Allow refusals lately, this outlet's (or the relay's on its behalf) and its peers'. */
  private readonly refusals = new RecentRefusals();

  constructor(private readonly options: OutletOptions) {
    const parsed = parseHostPort(options.to);
    if (!parsed.ok) throw new Error(`outlet target ${options.to}: ${parsed.reason}`);
    this.target = parsed.address;
    this.targets = new ConnectionCounter(options.connectionBounds ?? defaultConnectionBounds);
    this.throttled = new LogThrottle((line) => options.logger.warn(line));
    this.dialer = new DirectDialer({
      logger: options.logger,
      carry: (raw, inlet) =>
        this.carryRaw(raw, 'direct').catch((error: unknown) => {
          // Other failures on the direct path leave the inlet on the relay; the dialer says so.
          if (error instanceof PeerRefused) this.noteSessionFailure(error, inlet);
          throw error;
        }),
      holding: (inlet) => ({
        session: (this.directSessions.get(inlet)?.size ?? 0) > 0,
        waiting: this.unopenedByPeer.get(inlet) ?? 0,
      }),
    });
  }

  start(): void {
    const { relays } = this.options;
    relays.on('up', (link: RelayLink) => void this.register(link));
    relays.on('down', (link: RelayLink) => {
      this.registeredOn.delete(link.entry.id);
      if (this.registeredOn.size === 0 && this.status === 'up') this.status = 'waiting';
    });
    relays.on('event', (link: RelayLink, event: Partial<RelayEvent> & Record<string, unknown>) => {
      const from = typeof event.from === 'string' ? event.from.slice(0, 64) : '?';
      if (event.event === 'dial' && typeof event.splice === 'string' && typeof event.secret === 'string')
        this.onDial(link, event.splice, event.secret, from);
      if (event.event === 'refused' && typeof event.count === 'number') {
        const attributes = Array.isArray(event.attributes)
          ? event.attributes.filter((a): a is string => typeof a === 'string').slice(0, 8)
          : [];
        this.noteRefused(from, attributes, event.count, 'the relay refused');
        // The relay's word, bounded: a count a relay made up costs nothing but a wrong figure.
        const count = Number.isFinite(event.count) ? Math.max(0, Math.min(Math.floor(event.count), 1_000_000)) : 0;
        if (count > 0) {
          this.refusals.note(
            { by: 'this node', told_by: 'relay', peer: from, saw: attributes, allow: this.options.allow },
            count,
          );
          this.options.metrics.failures.inc({ reason: 'peer_refused' }, count);
        }
      }
    });
    for (const link of relays.up()) void this.register(link);
    const { control } = this.options;
    if (control) {
      const fetchAdverts = () =>
        control.request('inlets', {}).then(
          ({ inlets }) => inlets.filter((advert) => this.wants(advert)).forEach((advert) => this.dialer.set(advert)),
          (error: Error) =>
            this.options.logger.debug(`outlet: no direct paths from the controller yet: ${error.message}`),
        );
      control.on('up', () => void fetchAdverts());
      control.on('event', (event: ControllerEvent) => {
        if (event.event === 'inlet' && this.wants(event.advert)) this.dialer.set(event.advert);
        if (event.event === 'inlet-gone' && typeof event.inlet === 'string') this.dialer.gone(event.inlet);
      });
      if (control.connected) void fetchAdverts();
    }
  }

  private wants(advert: InletAdvert | undefined): advert is InletAdvert {
    return outletDials(advert, this.options.relay, this.options.allow);
  }

  /**
   * Stops taking sessions, warm streams and streams (a stream opened now is refused) and closes the
   * warm streams no client uses; the connections it carries go on until they finish or stop() cuts them.
   */
  stopAccepting(): void {
    this.stopping = true;
    this.dialer.stop();
    for (const socket of this.waitingStreams) socket.destroy();
    // Each session refuses new streams and ends with its last one (an idle one at once), so its
    // inlet opens another, elsewhere if it can, while the streams it carries finish.
    for (const session of this.sessions) session.close();
  }

  /** Target connections open right now. */
  openConnections(): number {
    return this.sockets.size;
  }

  /** Settles once no target connection is open. */
  whenIdle(): Promise<void> {
    if (this.sockets.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Closes everything: sessions, warm streams (used or waiting) and target connections. */
  stop(): void {
    this.stopAccepting();
    for (const session of this.sessions) session.destroy();
    for (const streams of this.streamsByPeer.values()) for (const socket of streams) socket.destroy();
    for (const socket of this.sockets) socket.destroy();
  }

  describe() {
    return {
      relay: this.options.relay,
      registered_on: [...this.registeredOn],
      to: this.options.to,
      allow: this.options.allow,
      status: this.status,
      sessions: this.sessions.size,
      sessions_direct: [...this.directSessions.values()].reduce((sum, set) => sum + set.size, 0),
      direct_paths: this.dialer.describe().length,
      connections_total: this.connections.total,
      connections_active: this.connections.active,
      connections_failed: this.connections.failed,
      /** Connections to the target that failed since the last one that connected. */
      target_failures: this.targetFailures.describe(),
      refusals: this.refusals.describe(),
      connections_over_bound: this.overBound,
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
  private onDial(link: RelayLink, splice: string, secret: string, from: string): void {
    if (this.stopping) return;
    const mine = this.handshakes.get(from) ?? 0;
    if (mine >= outletLimits.handshakesPerMember || this.handshakesTotal >= outletLimits.handshakesTotal) {
      this.dialsDeclined += 1;
      this.noteRefused(from, [], 1, 'declined dials (too many handshakes under way) from');
      return;
    }
    this.handshakes.set(from, mine + 1);
    this.handshakesTotal += 1;
    void this.answerDial(link.entry.address, splice, secret, from).finally(() => {
      this.handshakesTotal -= 1;
      const left = (this.handshakes.get(from) ?? 1) - 1;
      if (left > 0) this.handshakes.set(from, left);
      else this.handshakes.delete(from);
    });
  }

  /** One warning per member and reason a minute, with how many times it happened meanwhile. */
  private noteRefused(from: string, attributes: readonly string[], count: number, what: string): void {
    const key = `${what} ${from}`;
    const now = Date.now();
    const noted = this.refusedMembers.get(key) ?? { count: 0, attributes, loggedAt: 0 };
    noted.count += count;
    if (now - noted.loggedAt >= 60_000) {
      const seen =
        noted.attributes.length > 0
          ? ` (attribute ${noted.attributes.map((a) => `"${a}"`).join(', ')}; allow is "${this.options.allow}")`
          : '';
      this.options.logger.warn(
        `outlet: ${what} node ${from}${seen}: ${noted.count} time${noted.count === 1 ? '' : 's'} since the last report`,
      );
      noted.count = 0;
      noted.loggedAt = now;
    }
    this.refusedMembers.set(key, noted);
    // Forget members that went quiet, so a parade of node ids cannot grow this map without bound.
    if (this.refusedMembers.size > 1000) {
      for (const [stale, entry] of this.refusedMembers)
        if (now - entry.loggedAt >= 60_000 && entry.count === 0) this.refusedMembers.delete(stale);
    }
  }

  private async register(link: RelayLink): Promise<void> {
    if (this.stopping) return;
    try {
      // The relay refuses on the outlet's behalf every inlet this allow would refuse.
      await link.channel.request('register', { relay: this.options.relay, allow: this.options.allow });
      if (!link.channel.connected) return;
      this.registeredOn.add(link.entry.id);
      this.options.logger.info(
        `outlet: relay name "${this.options.relay}" registered on relay ${link.entry.id} (${link.entry.address}); forwarding to ${this.options.to}`,
      );
      this.status = 'up';
    } catch (error) {
      if (error instanceof PortalError && error.code === 'RELAY_NOT_GRANTED') {
        this.status = 'failed';
        this.options.onFatal(error);
      }
      // Anything else: the connection dropped; 'up' will come again.
    }
  }

  private async answerDial(relay: string, splice: string, secret: string, from: string): Promise<void> {
    try {
      await this.carryRaw(await dialSplice(relay, splice, 'outlet', secret, true), 'relay');
    } catch (error) {
      this.noteSessionFailure(error, from);
      if (error instanceof PeerRefused) this.logRefusal(error.message);
      else this.options.logger.debug(`outlet: session failed: ${(error as Error).message}`);
    }
  }

  /** A session or warm stream with `peer` that failed: an allow refusal is remembered with what each side saw. */
  private noteSessionFailure(error: unknown, peer: string): void {
    if (!(error instanceof PeerRefused)) {
      this.options.metrics.failures.inc({ reason: 'session_failed' });
      return;
    }
    this.options.metrics.failures.inc({ reason: 'peer_refused' });
    const { ours, theirs } = error.verdicts;
    const mine = ours?.accept === false;
    const verdict = mine ? ours : theirs;
    this.refusals.note({
      by: mine ? 'this node' : 'the peer',
      told_by: 'verdict',
      peer: peer || null,
      saw: verdict?.saw ?? [],
      allow: verdict?.want ?? '?',
    });
  }

  /**
   * The end-to-end TLS and verdicts on a raw connection to an inlet (a relay splice, or one this
   * outlet dialled directly), then what the inlet asked for: a session or a warm stream.
   */
  private async carryRaw(raw: Socket, path: Path): Promise<void> {
    const { logger, metrics } = this.options;
    if (this.stopping) {
      raw.destroy();
      return;
    }
    const channel = await acceptOutletChannel(raw, this.options.credentials(), this.options.allow);
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
      this.onStream(stream, path, inlet);
    };
    // The streams a session holds are bounded by the target connections its inlet may have (onStream).
    const { session } = adoptOutletSession(channel, { onStream });
    this.sessions.add(session);
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
        socket.destroy(new Error('the inlet stopped answering'));
    };
    if (this.options.heartbeat)
      keepAlive(session, this.options.heartbeat.intervalMs, this.options.heartbeat.timeoutMs, closePeerStreams);
    session.once('close', (why?: Error) => {
      this.sessions.delete(session);
      metrics.sessionsOpen.dec({ part: 'outlet', path });
      // A session closed for breaking the protocol (a flood of opens it does not read the answers to,
      // bytes beyond a window) is a member misbehaving: said, a line per member every 10 s at most.
      if (why?.message.startsWith('the peer broke the session protocol')) {
        this.throttled.note(
          `protocol ${inlet}`,
          (count) =>
            `outlet: closed ${count === 1 ? 'a session' : `${count} sessions`} of inlet ${inlet || '?'}: ${why.message}`,
        );
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
    const waiting = this.unopenedByPeer.get(key) ?? 0;
    if (waiting >= outletLimits.unopenedPerMember) {
      this.dialsDeclined += 1;
      this.noteRefused(key, [], 1, `closed warm streams beyond ${outletLimits.unopenedPerMember} waiting from`);
      socket.destroy();
      return;
    }
    this.unopenedByPeer.set(key, waiting + 1);
    this.waitingStreams.add(socket);
    let counted = true;
    const uncount = () => {
      if (!counted) return;
      counted = false;
      this.waitingStreams.delete(socket);
      const left = (this.unopenedByPeer.get(key) ?? 1) - 1;
      if (left > 0) this.unopenedByPeer.set(key, left);
      else this.unopenedByPeer.delete(key);
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
    const single: MuxSession = new MuxSession(socket, 'outlet', {
      maxStreams: 1,
      onStream: (stream) => {
        uncount();
        this.onStream(stream, path, key);
        // Its one stream carried, the session ends.
        single.close();
      },
    });
  }

  /** Counts a connection to the target while `join` carries it, and its bytes once it is over. */
  private carry(target: Socket, join: () => Promise<void>, path: Path): void {
    const { metrics } = this.options;
    this.connections.total += 1;
    this.connections.active += 1;
    metrics.connections.inc({ part: 'outlet', path });
    metrics.connectionsOpen.inc({ part: 'outlet', path });
    void join().then(() => {
      this.connections.active -= 1;
      metrics.connectionsOpen.dec({ part: 'outlet', path });
      metrics.bytes.inc({ part: 'outlet', direction: 'to_target' }, target.bytesWritten);
      metrics.bytes.inc({ part: 'outlet', direction: 'from_target' }, target.bytesRead);
    });
  }

  /**
   * Connects to the target, over TLS when the outlet is configured so; `ready` settles once the
   * connection (and its handshake) is complete, and a failure has been counted and logged.
   */
  private dialTarget(inlet: string): { target: Socket; ready: { promise: Promise<void>; settled: boolean } } {
    const host = socketHost(this.target.host);
    // highWaterMark is a stream option the Socket constructor passes on; @types/node does not list it.
    const target = this.options.tls
      ? connectTargetTls(host, this.target.port, dataPathHighWaterMark)
      : connectTcp({
          host,
          port: this.target.port,
          allowHalfOpen: true,
          noDelay: true,
          highWaterMark: dataPathHighWaterMark,
        } as NetConnectOpts);
    this.sockets.add(target);
    target.once('close', () => {
      this.sockets.delete(target);
      this.targets.release(inlet);
      if (this.sockets.size === 0) this.idleWaiters.splice(0).forEach((resolve) => resolve());
    });
    const ready = { settled: false, promise: Promise.resolve() };
    ready.promise = new Promise<void>((resolve, reject) => {
      // A target that never answers (a dropped SYN) fails as one that refuses, only later.
      const timer = setTimeout(
        () =>
          target.destroy(
            Object.assign(new Error(`no connection within ${targetConnectTimeoutMs} ms`), { code: 'ETIMEDOUT' }),
          ),
        targetConnectTimeoutMs,
      );
      timer.unref();
      target.once('close', () => clearTimeout(timer));
      const onError = (error: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        ready.settled = true;
        this.connections.failed += 1;
        this.targetFailures.fail(error.code ?? error.message);
        this.options.metrics.failures.inc({ reason: 'target_unreachable' });
        const why = describeTargetFailure(this.options.to, error);
        this.throttled.note(
          `target ${error.code ?? why}`,
          (count) => `outlet: ${why}${count > 1 ? ` (${count} times since the last report)` : ''}`,
        );
        target.destroy();
        reject(error);
      };
      target.once('error', onError);
      target.once(this.options.tls ? 'secureConnect' : 'connect', () => {
        clearTimeout(timer);
        ready.settled = true;
        this.targetFailures.succeed();
        target.off('error', onError);
        // Never without a listener: whoever carries the connection next hears of an error by its close.
        target.on('error', () => target.destroy());
        resolve();
      });
    });
    return { target, ready };
  }

  /**
   * Takes one target connection for `inlet`, or says why not: the inlet, or every inlet together,
   * holds the bound already. The excess is refused before any dial, so a member that opens streams
   * without end costs the outlet a bounded number of descriptors.
   */
  private claimTarget(inlet: string): string | undefined {
    const claimed = this.targets.claim(inlet);
    if (claimed === 'ok') return undefined;
    this.overBound += 1;
    const { perInlet, total } = this.targets.bounds;
    const reason =
      claimed === 'inlet'
        ? `the outlet holds ${perInlet} connections of this inlet already`
        : `the outlet holds ${total} connections already`;
    this.throttled.note(
      `bound ${claimed} ${inlet}`,
      (count) =>
        `outlet: refused ${count} connection${count === 1 ? '' : 's'} of inlet ${inlet || '?'}: ${reason} (PORTAL_OUTLET_CONNECTIONS${claimed === 'inlet' ? '_PER_INLET' : ''} sets the bound)`,
    );
    return reason;
  }

  /** A refused inlet retries; say so when it starts and then once a minute, not at every attempt. */
  private logRefusal(message: string): void {
    const now = Date.now();
    if (message === this.lastRefusal.message && now - this.lastRefusal.at < 60_000) return;
    this.lastRefusal = { message, at: now };
    this.options.logger.warn(`outlet: refused an inlet: ${message}`);
  }

  /** A stream of a session: its bytes wait in the target's socket until it connects, then it is accepted. */
  private onStream(stream: IncomingStream, path: Path, inlet: string): void {
    if (this.stopping) {
      stream.refuse('the outlet is stopping');
      return;
    }
    const refusal = this.claimTarget(inlet);
    if (refusal) {
      stream.refuse(refusal);
      return;
    }
    const { target, ready } = this.dialTarget(inlet);
    // Closed before it connected (unreachable, or the inlet gave up): the stream is refused or reset.
    const finished = stream.attach(target);
    ready.promise.then(
      () => {
        stream.accept();
        this.carry(target, () => finished, path);
      },
      () => undefined,
    );
  }
}

/** One line on why the target was not reached: for TLS, which check failed. */
function describeTargetFailure(to: string, error: NodeJS.ErrnoException): string {
  const code = error.code ?? '';
  if (code.startsWith('ERR_TLS_CERT_ALTNAME') || /CERT|SELF_SIGNED|UNABLE_TO/.test(code)) {
    return `the TLS certificate of ${to} does not verify (${code}: ${error.message}); check the target name, or add its CA to NODE_EXTRA_CA_CERTS`;
  }
  return `cannot reach ${to} (${code || error.message})`;
}
