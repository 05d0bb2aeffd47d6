/**
 * The inlet: listens on its `from` address and carries each client connection over end-to-end TLS made
 * ahead of time, so that a new connection costs one round trip rather than a handshake: a warm stream
 * when one is ready (a session of its own for that one client), else a stream of the session
 * (src/wire/mux.ts). The session is opened through any relay that has the outlet as soon as one is
 * reachable, kept alive with heartbeats (which also watch the warm streams), and re-opened with
 * backoff when it drops, through another relay when its own was lost; meanwhile the inlet keeps
 * listening and resets clients once a short wait for a session runs out. With the direct path on, the inlet advertises its direct listener
 * through the controller and the outlet dials it: the session and the warm streams then come over
 * direct connections, and a relayed session gives way to a direct one whenever one arrives. The
 * controller plays no part in carrying anything.
 */
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { parseHostPort, socketHost } from '../shared/address.ts';
import { PortalError, RuntimeFailure, printable } from '../shared/errors.ts';
import { dataPathHighWaterMark } from '../shared/socket-tuning.ts';
import {
  PeerRefused,
  SessionFailed,
  openInletChannel,
  openInletSession,
  type E2eSession,
} from '../wire/e2e-session.ts';
import { ClientLeft, MuxSession } from '../wire/mux.ts';
import { resetSocket } from '../wire/socket-reset.ts';
import { dialSplice } from '../wire/splice.ts';
import { keepAlive } from '../wire/tunnel-streams.ts';
import { Backoff } from './backoff.ts';
import { ClientTls } from './client-tls.ts';
import type { PartContext, PartStatus } from './part.ts';
import type { RelayLink } from './relay-links.ts';
import { WarmStreamPool, type Path } from './warm-streams.ts';
import type { DirectListener } from './direct-listener.ts';
import type { NodeControl } from './standing-channel.ts';
import { FailureStreak } from './failure-streak.ts';
import type { FailureReason } from './metrics.ts';
import type { RefusalShow } from './refusals.ts';

/** How long a new session waits for the outlet to dial the direct path before it goes through a relay. */
export const directBudgetMs = 300;

/** How long one relay may take to give a session or warm stream while another relay could still be tried. */
export const relayAttemptMs = 2000;
/** The most an attempt through the last relay left may take (see lastAttemptBudget). */
const lastRelayAttemptMs = 10_000;
/** How long a renewed direct session waits for the outlet's new dial before the relay carries it. */
const renewalDirectWaitMs = 2000;
/** How long a relay that failed an attempt is tried after the others: doubling for failures in a row, up to the second bound. */
const relayTroubleMs = 5000;
const relayTroubleMaxMs = 60_000;

/** Why the inlet's last attempt at a session failed, as /show gives it. */
export interface SessionFailureShow {
  readonly reason: FailureReason;
  /** The error, in words: the relay's answer, the verdict, the TLS failure. */
  readonly message: string;
  /** An allow refusal by the end-to-end verdicts: whose, and what it saw. */
  readonly refusal: Omit<RefusalShow, 'count' | 'last_at'> | null;
  readonly at: string;
}

export interface InletOptions extends PartContext {
  readonly from: string;
  readonly via: string;
  readonly allow: string;
  /** How long a new client waits for a session before it is refused. @default 3000 */
  readonly clientWaitMs?: number;
  readonly backoff?: Backoff;
  /** The listener, bound already (bindInletListener): a taken address fails before enrollment. */
  readonly listener: Server;
  /** Warm streams kept ready for new clients (0: every client rides the session). @default 2 */
  readonly warmStreams?: number;
  /** Serve TLS to clients with the node's project-signed server certificate. */
  readonly tls?: boolean;
  /** The direct path's listener, bound already; none: relays only. */
  readonly direct?: DirectListener;
  /** The controller, through which the direct path is advertised. */
  readonly control?: NodeControl;
}

/** Listens on `from`; a taken address is a clear error. */
export async function bindInletListener(from: string): Promise<Server> {
  const parsed = parseHostPort(from, true);
  if (!parsed.ok) throw new Error(`inlet address ${from}: ${parsed.reason}`);
  const server = createServer({ allowHalfOpen: true, noDelay: true, highWaterMark: dataPathHighWaterMark });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        new RuntimeFailure(
          'ADDRESS_IN_USE',
          `the inlet cannot listen on ${from}: ${error.code === 'EADDRINUSE' ? 'the address is in use' : error.message}`,
          {
            hint: 'stop whatever listens there, or change tcp-inlet.from',
            cause: error,
          },
        ),
      ),
    );
    server.listen(parsed.address.port, socketHost(parsed.address.host), () => resolve());
  });
  return server;
}

export class Inlet {
  status: PartStatus = 'starting';
  private readonly server: Server;
  private session: E2eSession | undefined;
  /** The path of the session: direct, or the relay it runs through. */
  private sessionPath: 'direct' | RelayLink | undefined;
  /** The relay that carried the last relayed session: preferred for the next one. */
  private lastRelay: RelayLink | undefined;
  /** Until when a direct session is expected (the advert is out): a new session waits for it that long. */
  private directDeadline = 0;
  private directOpening = false;
  private readonly byPath: Record<Path, number> = { direct: 0, relay: 0 };
  private opening: Promise<E2eSession | undefined> | undefined;
  /** A session made with credentials since renewed: it carries new clients until its successor opens. */
  private replacing: E2eSession | undefined;
  private waiters = new Set<() => void>();
  private readonly backoff: Backoff;
  private retry: NodeJS.Timeout | undefined;
  private stopped = false;
  private lastRefusal = '';
  private readonly clients = new Set<Socket>();
  /** Client connections accepted and not yet closed (their TCP sockets): what a stop waits for. */
  private readonly connected = new Set<Socket>();
  private idleWaiters: (() => void)[] = [];
  private connections = { total: 0, active: 0, refused: 0 };
  /** Warm end-to-end streams, each ready for one client; the session carries clients when none is. */
  private readonly warm: WarmStreamPool;
  /** Streams in use: closed with the session when its heartbeat is lost. */
  private readonly streaming = new Set<Socket>();
  private bound: AddressInfo | undefined;
  private readonly clientTls: ClientTls | undefined;
  /** Relays that failed an attempt lately, by relay id: tried after the others until `until`. */
  private readonly relayTrouble = new Map<string, { failures: number; until: number; reason: string }>();
  /** Why the last attempt at a session failed, until one opens. */
  private sessionFailure: SessionFailureShow | undefined;
  /** Clients the outlet refused (its target unreachable, its bounds) since it last accepted one. */
  private readonly outletRefusals = new FailureStreak();

  constructor(private readonly options: InletOptions) {
    this.backoff = options.backoff ?? new Backoff();
    this.server = options.listener;
    this.clientTls = options.tls ? new ClientTls(options.credentials) : undefined;
    this.server.on('connection', (socket: Socket) => void this.onConnection(socket));
    this.warm = new WarmStreamPool(options.warmStreams ?? 2, () => this.openWarmStream(), {
      // On the direct path the outlet dials warm streams itself, as many as the advert asks.
      fill: () => !this.stopped && this.session !== undefined && this.sessionPath !== 'direct',
      keep: () => !this.stopped && this.session !== undefined,
    });
  }

  /** Starts serving clients and keeping a session warm. */
  start(): AddressInfo {
    this.bound = this.server.address() as AddressInfo;
    this.server.on('error', (error) => this.options.logger.error(`inlet: ${error.message}`));
    const { relays } = this.options;
    relays.on('up', () => {
      this.status = 'up';
      this.ensureSession();
    });
    relays.on('down', (link: RelayLink) => {
      if (this.status === 'up' && relays.up().length === 0) this.status = 'waiting';
      // The relay the session rides is stopping or lost: new clients go to a session through
      // another relay while this one carries its streams to their end.
      if (this.sessionPath === link && relays.up().some((other) => other !== link)) this.leaveSession(this.session);
    });
    if (relays.up().length > 0) {
      this.status = 'up';
      this.ensureSession();
    } else {
      this.status = 'waiting';
    }
    const { direct, control } = this.options;
    if (direct && control) {
      direct.serve((raw) => void this.acceptDirect(raw));
      control.on('up', () => void this.advertise(direct, control));
      if (control.connected) void this.advertise(direct, control);
    }
    return this.bound;
  }

  get address(): AddressInfo | undefined {
    return this.bound;
  }

  /**
   * New credentials: a fresh session is opened with them, and the current one carries new clients
   * until it is (then finishes its streams and closes), so that a renewal never leaves the inlet
   * without a session. Warm streams are made again with the new credentials.
   */
  rotate(): void {
    this.warm.destroyAll();
    this.replacing = this.session;
    // A direct session is renewed on the direct path: the outlet dials again once the warm streams it
    // kept for this inlet are gone, and that connection becomes the session. The relay carries the
    // renewed session only if no dial comes in time (or the inlet keeps no warm streams).
    if (this.sessionPath === 'direct' && this.warm.wanted > 0)
      this.directDeadline = Math.max(this.directDeadline, Date.now() + renewalDirectWaitMs);
    this.ensureSession();
  }

  /**
   * Opens a successor to `session`, which carries no new client once the successor is open and
   * closes when its streams end, as a renewal does: for a session whose relay or outlet is going away.
   */
  private leaveSession(session: E2eSession | undefined): void {
    if (!session || session !== this.session || this.replacing === session || this.stopped) return;
    this.warm.destroyAll();
    this.replacing = session;
    this.ensureSession();
  }

  /**
   * Stops taking clients, opening sessions and keeping streams ready; the clients it carries go on,
   * on their sessions and streams, until they finish or stop() cuts them.
   */
  stopAccepting(): void {
    if (this.stopped) return;
    this.stopped = true;
    clearTimeout(this.retry);
    this.warm.destroyAll();
    this.server.close();
    this.options.direct?.stopAccepting();
  }

  /** Client connections open right now. */
  openConnections(): number {
    return this.connected.size;
  }

  /** Settles once no client connection is open. */
  whenIdle(): Promise<void> {
    if (this.connected.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  stop(): Promise<void> {
    this.stopAccepting();
    this.session?.session.destroy();
    this.replacing?.session.destroy();
    for (const socket of this.streaming) socket.destroy();
    // Cut short by the stop: a reset, not an end.
    for (const client of this.clients) resetSocket(client);
    const closing = this.options.direct?.close();
    return new Promise<void>((resolve) => this.server.close(() => resolve())).then(() => closing);
  }

  describe() {
    return {
      from: this.options.from,
      listening: this.bound ? `${this.bound.address}:${this.bound.port}` : null,
      via: this.options.via,
      allow: this.options.allow,
      status: this.status,
      session: this.session ? 'open' : this.opening ? 'opening' : 'none',
      path: describePath(this.session ? this.sessionPath : undefined),
      direct: this.options.direct ? this.options.direct.listening : null,
      warm_streams: this.warm.size,
      connections_total: this.connections.total,
      connections_active: this.connections.active,
      connections_refused: this.connections.refused,
      connections_direct: this.byPath.direct,
      connections_relayed: this.byPath.relay,
      /** Why the last attempt at a session failed, while there is none. */
      session_failure: this.session ? null : (this.sessionFailure ?? null),
      /** Clients the outlet refused since it last accepted one. */
      refused_by_outlet: this.outletRefusals.describe(),
      /** Relays that failed an attempt lately, tried after the others until `until`. */
      relays_failed: [...this.relayTrouble.entries()]
        .filter(([, trouble]) => trouble.until > Date.now())
        .map(([id, trouble]) => ({
          id,
          failures: trouble.failures,
          reason: trouble.reason,
          until: new Date(trouble.until).toISOString(),
        })),
    };
  }

  private ensureSession(): void {
    if (this.stopped || this.opening || this.hasCurrentSession()) return;
    this.opening = this.openSession().finally(() => {
      this.opening = undefined;
    });
  }

  /**
   * Relays in the order they are tried: the preferred one (the last session's) first, then the others
   * that are up, and last those that failed an attempt lately, the soonest forgiven first.
   */
  private relayOrder(preferred: RelayLink | undefined): RelayLink[] {
    const now = Date.now();
    const troubledUntil = (link: RelayLink) => this.relayTrouble.get(link.entry.id)?.until ?? 0;
    const up = this.options.relays.up();
    const healthy = up.filter((link) => troubledUntil(link) <= now);
    const ordered =
      preferred && healthy.includes(preferred) ? [preferred, ...healthy.filter((link) => link !== preferred)] : healthy;
    const troubled = up.filter((link) => troubledUntil(link) > now).sort((a, b) => troubledUntil(a) - troubledUntil(b));
    return [...ordered, ...troubled];
  }

  /**
   * A session or warm stream to an outlet of `via` through the first relay that gives one: each relay
   * in `relayOrder`, with `relayAttemptMs` for the whole attempt (grant, dial, handshake, verdicts)
   * while another could still be tried. A relay that grants splices and carries nothing, or stopped
   * answering, costs that long once and is then tried last for a while; a refusal on one relay
   * (PEER_NOT_ALLOWED, or the outlet's verdict) keeps the inlet from none of the others.
   */
  private async throughRelays<T>(
    preferred: RelayLink | undefined,
    halfOpen: boolean,
    open: (raw: Socket, timeoutMs: number) => Promise<T>,
    discard: (value: T) => void,
  ): Promise<{ value: T; link: RelayLink }> {
    const order = this.relayOrder(preferred);
    const onlyRelay = this.options.relays.all().length <= 1;
    let last: unknown = new RuntimeFailure('RELAY_UNREACHABLE', 'no relay of the project is reachable right now', {
      hint: 'check the relays; the node reconnects by itself',
    });
    for (const [index, link] of order.entries()) {
      const budgetMs = index < order.length - 1 ? relayAttemptMs : this.lastAttemptBudget(link, onlyRelay);
      try {
        const value = await this.attempt(link, halfOpen, open, discard, budgetMs);
        this.relayTrouble.delete(link.entry.id);
        return { value, link };
      } catch (error) {
        last = error;
        const refused =
          error instanceof PeerRefused || (error instanceof PortalError && error.code === 'PEER_NOT_ALLOWED');
        if (!refused) this.troubleWith(link, (error as Error).message);
      }
    }
    throw last;
  }

  /**
   * The budget of the last relay left in an attempt: all of it for the only relay the node knows (a
   * slow path is better than none); otherwise 2 s, doubling while it keeps failing, so that a stalled
   * relay does not hold the inlet while another one it knows is still connecting.
   */
  private lastAttemptBudget(link: RelayLink, onlyRelay: boolean): number {
    if (onlyRelay) return lastRelayAttemptMs;
    return Math.min(lastRelayAttemptMs, relayAttemptMs * 2 ** (this.relayTrouble.get(link.entry.id)?.failures ?? 0));
  }

  /** One attempt through one relay, given up after `budgetMs`; whatever it made after that is discarded. */
  private attempt<T>(
    link: RelayLink,
    halfOpen: boolean,
    open: (raw: Socket, timeoutMs: number) => Promise<T>,
    discard: (value: T) => void,
    budgetMs: number,
  ): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      let raw: Socket | undefined;
      let expired = false;
      const timer = setTimeout(() => {
        expired = true;
        raw?.destroy();
        reject(
          new RuntimeFailure('RELAY_STALLED', `relay ${link.entry.id} gave no session within ${budgetMs} ms`, {
            hint: 'the inlet tries the other relays first for a while',
          }),
        );
      }, budgetMs);
      const run = async () => {
        const grant = await link.channel.request('connect', { relay: this.options.via, allow: this.options.allow });
        if (expired) return;
        raw = await dialSplice(link.entry.address, grant.splice, 'inlet', grant.secret, halfOpen);
        if (expired) {
          raw.destroy();
          return;
        }
        const value = await open(raw, budgetMs);
        if (expired) {
          discard(value);
          return;
        }
        clearTimeout(timer);
        resolve(value);
      };
      run().catch((error: unknown) => {
        clearTimeout(timer);
        reject(error as Error);
      });
    });
  }

  /** A relay failed an attempt (or a session through it died): tried after the others, for longer each time in a row. */
  private troubleWith(link: RelayLink, reason: string): void {
    const failures = (this.relayTrouble.get(link.entry.id)?.failures ?? 0) + 1;
    const forMs = Math.min(relayTroubleMaxMs, relayTroubleMs * 2 ** (failures - 1));
    this.relayTrouble.set(link.entry.id, {
      failures,
      until: Date.now() + forMs,
      reason: printable(reason.slice(0, 300)),
    });
    // Bounded by the relays a node links (RelayLinks); forget those no longer up.
    if (this.relayTrouble.size > 64) {
      const up = new Set(this.options.relays.all().map((known) => known.entry.id));
      for (const id of this.relayTrouble.keys()) if (!up.has(id)) this.relayTrouble.delete(id);
    }
  }

  /** Tells the outlets of `via`, through the controller, where to dial this inlet directly. */
  private async advertise(direct: DirectListener, control: NodeControl): Promise<void> {
    // Expected soon after the advert reaches the outlets: a session opening meanwhile waits for it.
    this.directDeadline = Date.now() + 1000 + directBudgetMs;
    try {
      await control.request('advertise', {
        via: this.options.via,
        allow: this.options.allow,
        addresses: direct.addresses(),
        secret: direct.secret,
        warm: this.warm.wanted,
      });
      this.directDeadline = Math.min(this.directDeadline, Date.now() + directBudgetMs);
    } catch (error) {
      this.directDeadline = 0;
      this.options.logger.debug(`inlet: the direct path was not advertised: ${(error as Error).message}`);
    }
  }

  /** A connection an outlet dialled on the direct path: the session if there is no direct one yet, else a warm stream. */
  private async acceptDirect(raw: Socket): Promise<void> {
    const { credentials, allow, logger } = this.options;
    if (this.stopped) {
      raw.destroy();
      return;
    }
    raw.on('error', () => raw.destroy());
    const directCurrent = this.sessionPath === 'direct' && this.hasCurrentSession();
    if (!directCurrent && !this.directOpening) {
      this.directOpening = true;
      // A session's connection is not half-open (the listener's are, for streams): an outlet that goes
      // away ends it at once.
      raw.allowHalfOpen = false;
      try {
        const opened = await openInletSession(raw, credentials(), allow);
        if (this.stopped) opened.session.destroy();
        else this.adopt(opened, 'direct');
      } catch (error) {
        logger.debug(`inlet: direct session failed: ${(error as Error).message}`);
      } finally {
        this.directOpening = false;
      }
      return;
    }
    if (!this.warm.hasRoom()) {
      raw.destroy();
      return;
    }
    const made = openInletChannel(raw, credentials(), allow, 'stream').then(
      ({ socket }) => socket,
      (error: Error) => {
        logger.debug(`inlet: no direct warm stream: ${error.message}`);
        return undefined;
      },
    );
    await this.warm.making(made, 'direct');
  }

  private async openSession(): Promise<E2eSession | undefined> {
    const { logger } = this.options;
    const wait = this.directDeadline - Date.now();
    if (wait > 0) {
      await new Promise<void>((resolve) => {
        const wake = () => {
          clearTimeout(timer);
          this.waiters.delete(wake);
          resolve();
        };
        const timer = setTimeout(wake, wait);
        this.waiters.add(wake);
      });
      if (this.stopped || this.hasCurrentSession()) return this.session;
    }
    try {
      const { value: opened, link } = await this.throughRelays(
        this.lastRelay,
        false,
        (raw, timeoutMs) => openInletSession(raw, this.options.credentials(), this.options.allow, timeoutMs),
        (late) => late.session.destroy(),
      );
      // A direct session may have come meanwhile: it is the better one.
      if (this.stopped || this.hasCurrentSession()) {
        opened.session.close();
        return this.session;
      }
      this.adopt(opened, link);
      return opened;
    } catch (error) {
      const message = (error as Error).message;
      this.noteSessionFailure(error);
      // Refused by the outlet's verdict, or by the relay on the outlet's behalf.
      if (error instanceof PeerRefused || (error instanceof PortalError && error.code === 'PEER_NOT_ALLOWED')) {
        if (message !== this.lastRefusal) logger.warn(`inlet: ${message}`);
        this.lastRefusal = message;
      } else if (this.backoff.failures % 10 === 0) {
        logger.warn(`inlet: no session to relay "${this.options.via}": ${message}; retrying`);
      }
      this.later();
      return undefined;
    }
  }

  /** Remembers why an attempt at a session failed, for /show, and counts it by reason. */
  private noteSessionFailure(error: unknown): void {
    const message = printable(((error as Error).message ?? String(error)).slice(0, 300));
    const code = error instanceof PortalError ? error.code : '';
    let refusal: SessionFailureShow['refusal'] = null;
    let reason: FailureReason = 'relay_failed';
    if (error instanceof PeerRefused) {
      reason = 'peer_refused';
      const { ours, theirs } = error.verdicts;
      const mine = ours?.accept === false;
      const verdict = mine ? ours : theirs;
      refusal = {
        by: mine ? 'this node' : 'the peer',
        told_by: 'verdict',
        peer: null,
        saw: verdict?.saw ?? [],
        allow: verdict?.want ?? '?',
      };
    } else if (code === 'PEER_NOT_ALLOWED') {
      reason = 'peer_refused';
    } else if (code === 'RELAY_UNAVAILABLE') {
      reason = 'no_outlet';
    } else if (error instanceof SessionFailed) {
      reason = 'session_failed';
    }
    this.sessionFailure = { reason, message, refusal, at: new Date().toISOString() };
    this.options.metrics.failures.inc({ reason });
  }

  /** Whether a session made with the current credentials carries new clients. */
  private hasCurrentSession(): boolean {
    return this.session !== undefined && this.session !== this.replacing;
  }

  /**
   * Makes `opened` the session that carries new clients. A relayed session it replaces finishes the
   * streams it carries and closes; so does a direct one's loss lead to a relayed one at once.
   */
  private adopt(opened: E2eSession, path: 'direct' | RelayLink): void {
    const { logger, metrics } = this.options;
    const previous = this.session;
    this.session = opened;
    this.replacing = undefined;
    this.sessionPath = path;
    if (path !== 'direct') this.lastRelay = path;
    const pathLabel = path === 'direct' ? 'direct' : 'relay';
    this.sessionFailure = undefined;
    metrics.sessions.inc({ part: 'inlet', path: pathLabel });
    metrics.sessionsOpen.inc({ part: 'inlet', path: pathLabel });
    const described = describePath(path);
    if (previous) {
      logger.info(
        `inlet: session to relay name "${this.options.via}" now ${described}; the earlier one closes once its streams end`,
      );
      previous.session.close();
    } else if (this.backoff.failures > 0 || this.lastRefusal) {
      logger.info(`inlet: session to relay name "${this.options.via}" open again, ${described}`);
    } else {
      logger.debug(`inlet: session to relay name "${this.options.via}" open, ${described}`);
    }
    this.backoff.reset();
    this.lastRefusal = '';
    // With an error, so that each stream's client is closed too rather than left waiting.
    const closeStreams = () => {
      const lost = new Error('the outlet stopped answering');
      this.warm.destroyAll(lost);
      for (const socket of this.streaming) socket.destroy(lost);
    };
    if (this.options.heartbeat)
      keepAlive(opened.session, this.options.heartbeat.intervalMs, this.options.heartbeat.timeoutMs, closeStreams);
    opened.session.once('close', (why?: Error) => {
      metrics.sessionsOpen.dec({ part: 'inlet', path: pathLabel });
      if (this.session !== opened) return;
      this.session = undefined;
      this.replacing = undefined;
      this.sessionPath = undefined;
      // Closed by the node's own stop: nothing to reopen, nothing to say.
      if (this.stopped) return;
      logger.info(
        `inlet: session to relay name "${this.options.via}" (${described}) closed (${why?.message ?? 'no reason given'}); reopening`,
      );
      metrics.failures.inc({ reason: 'session_failed' });
      // Lost, not replaced: the relay it ran through goes to the back of the order for a while.
      if (path !== 'direct')
        this.troubleWith(path, `the session through it closed (${why?.message ?? 'no reason given'})`);
      // At once when a relay can carry it: the clients of this moment wait for it.
      if (this.options.relays.up().some((other) => other !== path)) this.ensureSession();
      else this.later();
    });
    for (const wake of this.waiters) wake();
    this.warm.fill();
  }

  /** One warm stream through a relay (the session's, when it has one). */
  private async openWarmStream(): Promise<TLSSocket | undefined> {
    try {
      const preferred = this.sessionPath === 'direct' ? this.lastRelay : this.sessionPath;
      const { value } = await this.throughRelays(
        preferred,
        true,
        (raw, timeoutMs) => openInletChannel(raw, this.options.credentials(), this.options.allow, 'stream', timeoutMs),
        (late) => late.socket.destroy(),
      );
      return value.socket;
    } catch (error) {
      this.options.logger.debug(`inlet: no warm stream: ${(error as Error).message}`);
      return undefined;
    }
  }

  private later(): void {
    if (this.stopped || this.options.relays.up().length === 0) return;
    clearTimeout(this.retry);
    this.retry = setTimeout(() => this.ensureSession(), this.backoff.next());
  }

  private waitForSession(timeoutMs: number): Promise<E2eSession | undefined> {
    if (this.session && !this.session.session.closed && !this.session.session.destroyed)
      return Promise.resolve(this.session);
    this.ensureSession();
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.waiters.delete(wake);
        resolve(this.session);
      };
      const timer = setTimeout(wake, timeoutMs);
      this.waiters.add(wake);
    });
  }

  private async onConnection(raw: Socket): Promise<void> {
    this.clients.add(raw);
    this.connected.add(raw);
    raw.once('close', () => {
      this.clients.delete(raw);
      this.connected.delete(raw);
      if (this.connected.size === 0) this.idleWaiters.splice(0).forEach((resolve) => resolve());
    });
    raw.on('error', () => raw.destroy());
    if (!this.clientTls) {
      await this.onClient(raw);
      return;
    }
    let socket: Socket;
    try {
      socket = await this.clientTls.accept(raw);
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
    socket.pause();
    const taken = this.warm.take();
    if (taken) {
      const warm = taken.socket;
      this.streaming.add(warm);
      // A session of one stream: the outlet dials its target on its open, which leaves with the
      // client's first bytes; its end is a frame, so a connection cut on the way is told from an end.
      const single = new MuxSession(warm, 'inlet', { maxStreams: 1 });
      const { answered, finished } = single.open(socket, 10_000);
      single.close();
      // Counted once the outlet answers, as a session's stream is: carried, or refused (the client
      // reset already); a client that left first is neither.
      try {
        await answered;
        this.outletRefusals.succeed();
        await this.carry(socket, finished, taken.path);
      } catch (error) {
        if (!(error instanceof ClientLeft)) {
          this.outletRefused(error as Error);
          this.refuse(socket, (error as Error).message);
        }
        await finished;
      }
      this.streaming.delete(warm);
      return;
    }
    const session = await this.waitForSession(this.options.clientWaitMs ?? 3000);
    // The session may have been lost while the client waited (its heartbeat, its relay).
    if (!session || session.session.destroyed || session.session.closed || socket.destroyed) {
      this.refuse(socket, 'no session to the outlet');
      return;
    }
    // The path of the session the stream rides: another may be current by the time the outlet answers.
    const path = this.sessionPath === 'direct' ? 'direct' : 'relay';
    const { answered, finished } = session.session.open(socket, 10_000);
    try {
      await answered;
    } catch (error) {
      // A client that left first is no refusal: its close cancelled the stream.
      if (!(error instanceof ClientLeft)) {
        this.outletRefused(error as Error);
        this.refuse(socket, (error as Error).message);
        // An outlet that stops closes its sessions: the next clients wait for another.
        if (outletLeaving.test((error as Error).message)) this.leaveSession(session);
      }
      return;
    }
    this.outletRefusals.succeed();
    await this.carry(socket, finished, path);
  }

  /** Counts a client connection while `joined` carries it, and its bytes once it is over. */
  private async carry(socket: Socket, joined: Promise<void>, path: Path): Promise<void> {
    const { metrics } = this.options;
    this.connections.total += 1;
    this.connections.active += 1;
    this.byPath[path] += 1;
    metrics.connections.inc({ part: 'inlet', path });
    metrics.connectionsOpen.inc({ part: 'inlet', path });
    await joined;
    this.connections.active -= 1;
    metrics.connectionsOpen.dec({ part: 'inlet', path });
    metrics.bytes.inc({ part: 'inlet', direction: 'from_client' }, socket.bytesRead);
    metrics.bytes.inc({ part: 'inlet', direction: 'to_client' }, socket.bytesWritten);
  }

  /** The outlet did not take a client's stream (its target unreachable, a bound): one more in a row. */
  private outletRefused(error: Error): void {
    if (error instanceof ClientLeft) return;
    this.outletRefusals.fail(printable(error.message.slice(0, 300)));
  }

  private refuse(socket: Socket, reason: string): void {
    this.connections.refused += 1;
    this.options.metrics.refusals.inc({ part: 'inlet' });
    if (this.connections.refused === 1 || this.connections.refused % 100 === 0) {
      const on = this.bound ? `${this.bound.address}:${this.bound.port}` : this.options.from;
      this.options.logger.warn(`inlet: refused a client on ${on}: ${reason} (${this.connections.refused} so far)`);
    }
    // A reset, not a clean close with no bytes: the client knows it was not served.
    resetSocket(socket);
  }
}

/** The refusals of an outlet that is stopping, or closing the session they were asked on. */
const outletLeaving = /^the outlet is (stopping|closing the session)/;

function describePath(path: 'direct' | RelayLink | undefined): string | null {
  if (path === undefined) return null;
  return path === 'direct' ? 'direct' : `relay ${path.entry.id}`;
}
