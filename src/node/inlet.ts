/**
 * The inlet: listens on its `from` address and carries each client connection over end-to-end TLS made
 * ahead of time, so that a new connection costs one round trip rather than a handshake: a warm stream
 * when one is ready (a session of its own for that one client), else a stream of the session
 * (src/wire/mux.ts). The session is opened through any relay that has the outlet as soon as one is
 * reachable, kept alive with heartbeats (which also watch the warm streams), and re-opened with
 * backoff when it drops, through another relay when its own was lost; meanwhile the inlet keeps
 * listening and resets clients once a short wait for a session runs out. With the direct path on, the
 * inlet advertises its direct listener through the controller and the outlet dials it: the session and
 * the warm streams then come over direct connections, and a relayed session gives way to a direct one
 * whenever one arrives. The controller plays no part in carrying anything.
 *
 * This class puts the parts together and answers for them: the session keeper (inlet-session-keeper.ts)
 * with its relay attempts (inlet-relay-attempts.ts) and the direct path (inlet-direct-path.ts), the
 * clients (inlet-clients.ts) and their counters (inlet-counters.ts).
 */
import type { AddressInfo, Server, Socket } from 'node:net';
import type { PortalReport } from '../wire/protocol.ts';
import { Backoff } from './backoff.ts';
import { ClientTls } from './client-tls.ts';
import type { DirectListener } from './direct-listener.ts';
import { InletClients } from './inlet-clients.ts';
import { InletCounters } from './inlet-counters.ts';
import { InletDirectPath } from './inlet-direct-path.ts';
import { RelayAttempts } from './inlet-relay-attempts.ts';
import { InletPool } from './inlet-pool.ts';
import type { PartContext, PartStatus } from './part.ts';
import type { NodeControl } from './standing-channel.ts';
import { Subscriptions } from './subscriptions.ts';
import { clientWaitMs, defaultWarmStreams } from './limits.ts';

export { bindInletListener } from './inlet-listener.ts';
export type { SessionFailureShow } from './inlet-session-failure.ts';
export { directBudgetMs, relayAttemptMs } from './limits.ts';

export interface InletOptions extends PartContext {
  /** The portal's name, as /show gives it. */
  readonly name: string;
  /** Where the configuration defines it (/tcp-inlet, /tcp-inlets/<name>), as /show gives it. */
  readonly configuredAt: string;
  readonly from: string;
  readonly via: string;
  readonly allow: string;
  /** How long a new client waits for a session before it is refused. @default clientWaitMs */
  readonly clientWaitMs?: number;
  readonly backoff?: Backoff;
  /** The listener, bound already (bindInletListener): a taken address fails before enrollment. */
  readonly listener: Server;
  /** Warm streams kept ready for new clients (0: every client rides the session). @default defaultWarmStreams */
  readonly warmStreams?: number;
  /** Serve TLS to clients with the node's project-signed server certificate. */
  readonly tls?: boolean;
  /** The direct path's listener, bound already; none: relays only. */
  readonly direct?: DirectListener;
  /** The controller, through which the direct path is advertised. */
  readonly control?: NodeControl;
}

export class Inlet {
  status: PartStatus = 'starting';
  readonly startedAt = Date.now();
  private readonly server: Server;
  /** Its listener went to the inlet that replaced it: it neither takes its connections nor closes it. */
  private released = false;
  private readonly onConnection = (socket: Socket) => void this.clients.accept(socket);
  private readonly onServerError = (error: Error) => this.options.logger.error(`inlet: ${error.message}`);
  private bound: AddressInfo | undefined;
  private readonly relayAttempts: RelayAttempts;
  private readonly pool: InletPool;
  private readonly directPath: InletDirectPath | undefined;
  private readonly counters: InletCounters;
  private readonly clients: InletClients;
  /** What it listens to on the node's relay links and controller channel: dropped when it stops accepting. */
  private readonly subscriptions = new Subscriptions();

  constructor(private readonly options: InletOptions) {
    const { via, allow, relays, direct, control } = options;
    this.server = options.listener;
    this.relayAttempts = new RelayAttempts({ relays, via, allow });
    const backoff = options.backoff;
    this.pool = new InletPool({
      ...options,
      // The first keeper takes the inlet's own backoff (a test's); the others a new one each.
      backoff: () => (backoff && this.pool === undefined ? backoff : new Backoff()),
      warmStreams: options.warmStreams ?? defaultWarmStreams,
      relayAttempts: this.relayAttempts,
      onOutletSilent: (keeper, error) => this.clients.closeStreams(keeper, error),
      subscriptions: this.subscriptions,
    });
    this.directPath =
      direct && control
        ? new InletDirectPath({ ...options, direct, control, pool: this.pool, subscriptions: this.subscriptions })
        : undefined;
    this.counters = new InletCounters(options.metrics);
    this.clients = new InletClients({
      pool: this.pool,
      counters: this.counters,
      logger: options.logger,
      clientTls: options.tls ? new ClientTls(options.credentials) : undefined,
      clientWaitMs: options.clientWaitMs ?? clientWaitMs,
      audit: options.audit,
      listening: () => (this.bound ? `${this.bound.address}:${this.bound.port}` : options.from),
    });
    this.server.on('connection', this.onConnection);
  }

  /** Starts serving clients and keeping a session warm. */
  start(): AddressInfo {
    this.bound = this.server.address() as AddressInfo;
    this.server.on('error', this.onServerError);
    const { relays } = this.options;
    this.subscriptions.on(relays, 'up', () => {
      this.status = 'up';
    });
    this.subscriptions.on(relays, 'down', () => {
      if (this.status === 'up' && relays.up().length === 0) this.status = 'waiting';
    });
    this.status = relays.up().length > 0 ? 'up' : 'waiting';
    this.pool.start();
    this.directPath?.start();
    return this.bound;
  }

  get address(): AddressInfo | undefined {
    return this.bound;
  }

  /**
   * New credentials: a fresh session is opened with them, and the current one carries new clients
   * until it is, so that a renewal never leaves the inlet without a session.
   */
  rotate(): void {
    this.pool.rotate();
  }

  /**
   * Stops taking clients, opening sessions and keeping streams ready; the clients it carries go on,
   * on their sessions and streams, until they finish or stop() cuts them.
   */
  stopAccepting(): void {
    if (this.pool.stopped) return;
    this.subscriptions.clear();
    this.pool.stopAccepting();
    if (!this.released) this.server.close();
    this.options.direct?.stopAccepting();
  }

  /**
   * Gives its listener to the inlet that replaces it on the same address, so that no client finds the
   * port closed in between: from now on it takes no connection from it, and never closes it.
   */
  releaseListener(): Server {
    this.released = true;
    this.server.off('connection', this.onConnection);
    this.server.off('error', this.onServerError);
    return this.server;
  }

  /** Takes its direct path back from the controller (the node no longer has an inlet of this via). */
  withdraw(): void {
    const { control, direct, logger, via } = this.options;
    if (!direct || !control?.connected) return;
    void control
      .request('unadvertise', { via })
      .catch((error: Error) => logger.debug(`inlet: the direct path was not withdrawn: ${error.message}`));
  }

  /** Client connections open right now. */
  openConnections(): number {
    return this.clients.openConnections();
  }

  /** Settles once no client connection is open. */
  whenIdle(): Promise<void> {
    return this.clients.whenIdle();
  }

  stop(): Promise<void> {
    this.stopAccepting();
    this.pool.destroySessions();
    this.clients.cutAll();
    const closing = this.options.direct?.close();
    if (this.released) return closing ?? Promise.resolve();
    return new Promise<void>((resolve) => this.server.close(() => resolve())).then(() => closing);
  }

  /** What the node tells the controller of this inlet, for the console. */
  report(): PortalReport {
    const { connections_active: open, connections_total: total } = this.counters.describe();
    return {
      part: 'inlet',
      name: this.options.name,
      relay: this.options.via,
      status: this.status,
      since: this.startedAt,
      open,
      total,
      ...this.counters.carried(),
      peers: this.pool
        .describe()
        .flatMap(({ outlet, path, clients }) =>
          outlet === null ? [] : [{ node: outlet, path: path ?? '', open: clients }],
        ),
    };
  }

  describe() {
    return {
      name: this.options.name,
      configured_at: this.options.configuredAt,
      from: this.options.from,
      listening: this.bound ? `${this.bound.address}:${this.bound.port}` : null,
      via: this.options.via,
      allow: this.options.allow,
      status: this.status,
      // Of the pool: open while one outlet's session is; `outlets` gives each.
      session: this.pool.state(),
      path: this.pool.carrier().describePath(),
      direct: this.options.direct ? this.options.direct.listening : null,
      warm_streams: this.pool.keepers.reduce((sum, keeper) => sum + keeper.warm.size, 0),
      outlets: this.pool.describe(),
      ...this.counters.describe(),
      /** Why the last attempt at a session failed, while there is none. */
      session_failure: this.pool.state() === 'open' ? null : this.pool.first.failure(),
      /** Clients the outlet refused since it last accepted one. */
      refused_by_outlet: this.counters.refusedByOutlet(),
      /** Relays that failed an attempt lately, tried after the others until `until`. */
      relays_failed: this.relayAttempts.describe(),
    };
  }
}
