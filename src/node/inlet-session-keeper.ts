/**
 * The inlet's session to the outlet, and its warm streams: opened through a relay as soon as one is
 * reachable (or taken from the direct path), kept alive with heartbeats, re-opened with backoff when
 * it drops, renewed with new credentials, and left for a successor when its relay or outlet goes away.
 * Clients only take from it: a warm stream, or the session once there is one.
 */
import type { TLSSocket } from 'node:tls';
import { openInletChannel, openInletSession, PeerRefused, PeerRevoked, type E2eSession } from '../wire/e2e-session.ts';
import { goAwayNames, type GoAwayCode } from '../wire/mux.ts';
import { HeartbeatLost, keepAlive } from '../wire/tunnel-streams.ts';
import type { Backoff } from './backoff.ts';
import { isOutletElsewhere, type RelayAttempts } from './inlet-relay-attempts.ts';
import { isPeerRefusal, sessionFailureOf, type SessionFailureShow } from './inlet-session-failure.ts';
import { renewalDirectWaitMs } from './limits.ts';
import type { PartContext } from './part.ts';
import type { RelayLink } from './relay-links.ts';
import { WarmStreamPool } from './warm-streams.ts';

/** The path of a session: direct, or the relay it runs through. */
export type SessionPath = 'direct' | RelayLink;

/** The outlet a session or warm stream reaches, and the relay it runs through (none: direct). */
export interface StreamOrigin {
  readonly outlet: string | undefined;
  readonly relay: string | undefined;
}

export interface SessionKeeperOptions extends PartContext {
  /** The relay name whose outlets the session goes to. */
  readonly via: string;
  readonly allow: string;
  readonly backoff: Backoff;
  /** Warm streams kept ready for new clients (0: every client rides the session). */
  readonly warmStreams: number;
  readonly relayAttempts: RelayAttempts;
  /** The outlet stopped answering the session's heartbeats: the streams in use are closed with `error`. */
  readonly onOutletSilent: (error: Error) => void;
  /** A session was adopted or lost, or a warm stream made: the pool chooses again. */
  readonly onChange?: () => void;
}

export class SessionKeeper {
  /** Warm end-to-end streams, each ready for one client; the session carries clients when none is. */
  readonly warm: WarmStreamPool;
  /**
   * The outlet (node id) this keeper's sessions and streams go to, one member of the relay name's pool;
   * none: whichever outlet a relay chooses, and then the one its first session reached.
   */
  outlet: string | undefined;
  /** Until when a direct session is expected (the advert is out): a new session waits for it that long. */
  directDeadline = 0;
  private session: E2eSession | undefined;
  /** The path of the session: direct, or the relay it runs through. */
  private sessionPath: SessionPath | undefined;
  /** The relay that carried the last relayed session: preferred for the next one. */
  private lastRelay: RelayLink | undefined;
  private opening: Promise<E2eSession | undefined> | undefined;
  /** A session made with credentials since renewed: it carries new clients until its successor opens. */
  private replacing: E2eSession | undefined;
  private waiters = new Set<() => void>();
  private retry: NodeJS.Timeout | undefined;
  private stopping = false;
  private lastRefusal = '';
  /** Why the last attempt at a session failed, until one opens. */
  private sessionFailure: SessionFailureShow | undefined;
  /** Which outlet and relay each warm stream reaches, for the audit record of the client it carries. */
  readonly origins = new WeakMap<TLSSocket, StreamOrigin>();

  constructor(
    private readonly options: SessionKeeperOptions,
    outlet?: string,
  ) {
    this.outlet = outlet;
    this.warm = new WarmStreamPool(options.warmStreams, () => this.openWarmStream(), {
      // On the direct path the outlet dials warm streams itself, as many as the advert asks.
      fill: () => !this.stopping && this.session !== undefined && this.sessionPath !== 'direct',
      // Not from an outlet that said it goes away: its streams would be refused once it stops.
      keep: () => !this.stopping && this.session !== undefined && this.session.session.peerWentAway === undefined,
    });
  }

  /** Whether the inlet stopped taking clients, and so opens no session. */
  get stopped(): boolean {
    return this.stopping;
  }

  /** The path of the session, if there is one. */
  get path(): SessionPath | undefined {
    return this.sessionPath;
  }

  /** Where the session reaches: its outlet and relay (none on the direct path). */
  origin(session: E2eSession): StreamOrigin {
    const path = session === this.session ? this.sessionPath : undefined;
    return { outlet: session.peer?.nodeId, relay: path && path !== 'direct' ? path.entry.id : undefined };
  }

  /** Whether there is a session, or one is being opened, as /show says. */
  state(): 'open' | 'opening' | 'none' {
    return this.session ? 'open' : this.opening ? 'opening' : 'none';
  }

  /** The session's path in words, as /show says: none without a session. */
  describePath(): string | null {
    return describePath(this.session ? this.sessionPath : undefined);
  }

  /** Why the last attempt at a session failed, while there is none. */
  failure(): SessionFailureShow | null {
    return this.session ? null : (this.sessionFailure ?? null);
  }

  /** Opens a session, unless one made with the current credentials is open or being opened. */
  ensureSession(): void {
    if (this.stopping || this.opening || this.hasCurrentSession()) return;
    this.opening = this.openSession().finally(() => {
      this.opening = undefined;
    });
  }

  /** Whether a session made with the current credentials carries new clients. */
  hasCurrentSession(): boolean {
    return this.session !== undefined && this.session !== this.replacing;
  }

  /** Whether a client could be carried now: a warm stream is ready, or a session is open. */
  get ready(): boolean {
    if (this.stopping) return false;
    if (this.warm.size > 0) return true;
    const session = this.session?.session;
    // A session being replaced (a renewal) still carries clients; one whose outlet went away does not.
    return session !== undefined && !session.closed && !session.destroyed && session.peerWentAway === undefined;
  }

  /** The session, once there is one within `timeoutMs` (or undefined). */
  waitForSession(timeoutMs: number): Promise<E2eSession | undefined> {
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

  /** A relay went down: a session through it gives way to one through another relay, if one is up. */
  relayLost(link: RelayLink): void {
    // The relay the session rides is stopping or lost: new clients go to a session through
    // another relay while this one carries its streams to their end.
    if (this.sessionPath === link && this.options.relays.up().some((other) => other !== link))
      this.leaveSession(this.session);
  }

  /**
   * Opens a successor to `session`, which carries no new client once the successor is open and
   * closes when its streams end, as a renewal does: for a session whose relay or outlet is going away.
   */
  leaveSession(session: E2eSession | undefined): void {
    if (!session || session !== this.session || this.replacing === session || this.stopping) return;
    this.warm.destroyAll();
    this.replacing = session;
    this.ensureSession();
  }

  /** Opens no more sessions and keeps no warm streams; the sessions open carry their streams on. */
  stopAccepting(): void {
    this.stopping = true;
    clearTimeout(this.retry);
    this.warm.destroyAll();
  }

  /** Leaves the pool: opens nothing more; its session takes no new stream and closes when its streams end. */
  retire(): void {
    this.stopAccepting();
    this.session?.session.close();
  }

  /** Cuts the sessions, and so every stream they carry. */
  destroySessions(): void {
    this.session?.session.destroy();
    this.replacing?.session.destroy();
  }

  /**
   * Makes `opened` the session that carries new clients. A relayed session it replaces finishes the
   * streams it carries and closes; so does a direct one's loss lead to a relayed one at once.
   */
  adopt(opened: E2eSession, path: SessionPath): void {
    const { logger, metrics } = this.options;
    const previous = this.session;
    this.session = opened;
    this.replacing = undefined;
    this.sessionPath = path;
    // Pinned to the outlet it reached, so that its next sessions and streams go there too.
    if (opened.peer) this.outlet = opened.peer.nodeId;
    if (path !== 'direct') this.lastRelay = path;
    const pathLabel = path === 'direct' ? 'direct' : 'relay';
    this.sessionFailure = undefined;
    metrics.sessions.inc({ part: 'inlet', path: pathLabel });
    metrics.sessionsOpen.inc({ part: 'inlet', path: pathLabel });
    const described = describePath(path);
    if (previous) {
      logger.info(
        `inlet: session to relay name "${this.options.via}" now ${described}; ` +
          'the earlier one closes once its streams end',
      );
      previous.session.close();
    } else if (this.options.backoff.failures > 0 || this.lastRefusal) {
      logger.info(`inlet: session to relay name "${this.options.via}" open again, ${described}`);
    } else {
      logger.debug(`inlet: session to relay name "${this.options.via}" open, ${described}`);
    }
    this.options.backoff.reset();
    this.lastRefusal = '';
    // With an error, so that each stream's client is closed too rather than left waiting.
    const closeStreams = () => {
      const lost = new HeartbeatLost('the outlet stopped answering');
      this.warm.destroyAll(lost);
      this.options.onOutletSilent(lost);
    };
    if (this.options.heartbeat)
      keepAlive(opened.session, this.options.heartbeat.intervalMs, this.options.heartbeat.timeoutMs, closeStreams);
    // An outlet that stops, or closes the session, says so with a go-away: new clients go to a successor.
    opened.session.on('goaway', (code: GoAwayCode) => {
      if (this.session !== opened || this.stopping) return;
      logger.info(
        `inlet: the outlet went away from the session (${described}, ${goAwayNames[code]}); ` +
          'new clients go to the next one',
      );
      this.leaveSession(opened);
    });
    opened.session.once('close', (why?: Error) => {
      metrics.sessionsOpen.dec({ part: 'inlet', path: pathLabel });
      if (this.session !== opened) return;
      this.session = undefined;
      this.replacing = undefined;
      this.sessionPath = undefined;
      this.options.onChange?.();
      // Closed by the node's own stop: nothing to reopen, nothing to say.
      if (this.stopping) return;
      const reason = why?.message ?? 'no reason given';
      logger.info(`inlet: session to relay name "${this.options.via}" (${described}) closed (${reason}); reopening`);
      metrics.failures.inc({ reason: 'session_failed' });
      // Lost, not replaced: the relay it ran through goes to the back of the order for a while.
      if (path !== 'direct') this.options.relayAttempts.troubleWith(path, `the session through it closed (${reason})`);
      // At once when a relay can carry it: the clients of this moment wait for it.
      if (this.options.relays.up().some((other) => other !== path)) this.ensureSession();
      else this.later();
    });
    // The streams made through a relay before the direct session came would carry new clients the longer way.
    if (path === 'direct') this.warm.destroyRelayed();
    for (const wake of this.waiters) wake();
    this.options.onChange?.();
    this.warm.fill();
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
      if (this.stopping || this.hasCurrentSession()) return this.session;
    }
    try {
      const { value: opened, link } = await this.options.relayAttempts.through(
        this.lastRelay,
        false,
        (raw, timeoutMs) => openInletSession(raw, this.options.credentials(), this.options.allow, timeoutMs),
        (late) => late.session.destroy(),
        this.outlet,
      );
      // A direct session may have come meanwhile: it is the better one.
      if (this.stopping || this.hasCurrentSession()) {
        opened.session.close();
        return this.session;
      }
      this.adopt(opened, link);
      return opened;
    } catch (error) {
      const message = (error as Error).message;
      this.noteSessionFailure(error);
      // An outlet of the pool gone from every relay: the pool may move this keeper elsewhere.
      if (isOutletElsewhere(error)) this.options.onChange?.();
      if (isPeerRefusal(error)) {
        if (message !== this.lastRefusal) logger.warn(`inlet: ${message}`);
        this.lastRefusal = message;
      } else if (this.options.backoff.failures % 10 === 0) {
        logger.warn(`inlet: no session to relay "${this.options.via}": ${message}; retrying`);
      }
      this.later();
      return undefined;
    }
  }

  /** Remembers why an attempt at a session failed, for /show, and counts it by reason. */
  private noteSessionFailure(error: unknown): void {
    this.sessionFailure = sessionFailureOf(error, new Date());
    this.options.metrics.failures.inc({ reason: this.sessionFailure.reason });
    this.auditRefusal(error);
  }

  /**
   * This inlet's own refusal of an outlet (its allow, or the outlet revoked), for the audit trail, on
   * either path; the outlet records its own.
   */
  auditRefusal(error: unknown): void {
    if (error instanceof PeerRefused && error.verdicts.ours?.accept === false)
      this.options.audit?.refused('allow', undefined, error.message);
    if (error instanceof PeerRevoked && error.refusedByThisNode)
      this.options.audit?.refused('revoked', error.peer, error.message);
  }

  /** One warm stream through a relay (the session's, when it has one). */
  private async openWarmStream(): Promise<TLSSocket | undefined> {
    try {
      const preferred = this.sessionPath === 'direct' ? this.lastRelay : this.sessionPath;
      const { value, link } = await this.options.relayAttempts.through(
        preferred,
        true,
        (raw, timeoutMs) => openInletChannel(raw, this.options.credentials(), this.options.allow, 'stream', timeoutMs),
        (late) => late.socket.destroy(),
        this.outlet,
      );
      this.origins.set(value.socket, { outlet: value.peer?.nodeId, relay: link.entry.id });
      return value.socket;
    } catch (error) {
      this.auditRefusal(error);
      this.options.logger.debug(`inlet: no warm stream: ${(error as Error).message}`);
      return undefined;
    }
  }

  private later(): void {
    if (this.stopping || this.options.relays.up().length === 0) return;
    clearTimeout(this.retry);
    this.retry = setTimeout(() => this.ensureSession(), this.options.backoff.next());
  }
}

function describePath(path: SessionPath | undefined): string | null {
  if (path === undefined) return null;
  return path === 'direct' ? 'direct' : `relay ${path.entry.id}`;
}
