/**
 * The inlet: listens on its `from` address and carries each client connection as a CONNECT stream of a
 * warm end-to-end session with the outlet, so that a new connection costs one round trip rather than a
 * handshake. The session is opened as soon as the controller is reachable, kept alive with heartbeats,
 * and re-opened with backoff when it drops; meanwhile the inlet keeps listening and refuses clients
 * cleanly once a short wait for a session runs out.
 */
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { parseHostPort } from '../shared/address.ts';
import { RuntimeFailure } from '../shared/errors.ts';
import { dataPathHighWaterMark } from '../shared/socket-tuning.ts';
import { PeerRefused, openInletSession, type InletSession } from '../wire/e2e-session.ts';
import { dialSplice } from '../wire/splice.ts';
import { joinSocketAndStream, keepAlive, openTunnel } from '../wire/tunnel-streams.ts';
import { Backoff } from './backoff.ts';
import type { PartContext, PartStatus } from './part.ts';

export interface InletOptions extends PartContext {
  readonly from: string;
  readonly via: string;
  readonly allow: string;
  /** How long a new client waits for a session before it is refused. @default 3000 */
  readonly clientWaitMs?: number;
  readonly backoff?: Backoff;
  /** The listener, bound already (bindInletListener): a taken address fails before enrollment. */
  readonly listener: Server;
}

/** Listens on `from`; a taken address is a clear error. */
export async function bindInletListener(from: string): Promise<Server> {
  const parsed = parseHostPort(from, true);
  if (!parsed.ok) throw new Error(`inlet address ${from}: ${parsed.reason}`);
  const server = createServer({ allowHalfOpen: true, noDelay: true, highWaterMark: dataPathHighWaterMark });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        new RuntimeFailure('ADDRESS_IN_USE', `the inlet cannot listen on ${from}: ${error.code === 'EADDRINUSE' ? 'the address is in use' : error.message}`, {
          hint: 'stop whatever listens there, or change tcp-inlet.from',
          cause: error,
        }),
      ),
    );
    server.listen(parsed.address.port, parsed.address.host.replace(/^\[|\]$/g, ''), () => resolve());
  });
  return server;
}

export class Inlet {
  status: PartStatus = 'starting';
  private readonly server: Server;
  private session: InletSession | undefined;
  private opening: Promise<InletSession | undefined> | undefined;
  private waiters = new Set<() => void>();
  private readonly backoff: Backoff;
  private retry: NodeJS.Timeout | undefined;
  private stopped = false;
  private lastRefusal = '';
  private readonly clients = new Set<Socket>();
  private connections = { total: 0, active: 0, refused: 0 };
  private bound: AddressInfo | undefined;

  constructor(private readonly options: InletOptions) {
    this.backoff = options.backoff ?? new Backoff();
    this.server = options.listener;
    this.server.on('connection', (socket: Socket) => void this.onClient(socket));
  }

  /** Starts serving clients and keeping a session warm. */
  start(): AddressInfo {
    this.bound = this.server.address() as AddressInfo;
    this.server.on('error', (error) => this.options.logger.error(`inlet: ${error.message}`));
    this.options.control.on('up', () => {
      this.status = 'up';
      this.ensureSession();
    });
    this.options.control.on('down', () => {
      if (this.status === 'up') this.status = 'waiting';
    });
    if (this.options.control.connected) {
      this.status = 'up';
      this.ensureSession();
    } else {
      this.status = 'waiting';
    }
    return this.bound;
  }

  get address(): AddressInfo | undefined {
    return this.bound;
  }

  /** New credentials: the current session finishes its streams; new streams go to a fresh session. */
  rotate(): void {
    const old = this.session;
    this.session = undefined;
    old?.session.close();
    this.ensureSession();
  }

  stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retry);
    this.session?.session.destroy();
    for (const client of this.clients) client.destroy();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  describe() {
    return {
      from: this.options.from,
      listening: this.bound ? `${this.bound.address}:${this.bound.port}` : null,
      via: this.options.via,
      allow: this.options.allow,
      status: this.status,
      session: this.session ? 'open' : this.opening ? 'opening' : 'none',
      connections_total: this.connections.total,
      connections_active: this.connections.active,
      connections_refused: this.connections.refused,
    };
  }

  private ensureSession(): void {
    if (this.stopped || this.session || this.opening) return;
    this.opening = this.openSession().finally(() => {
      this.opening = undefined;
    });
  }

  private async openSession(): Promise<InletSession | undefined> {
    const { control, logger, metrics } = this.options;
    try {
      const grant = await control.request('connect', { relay: this.options.via });
      const raw = await dialSplice(this.options.controller, String(grant.splice), 'inlet', String(grant.secret));
      const opened = await openInletSession(raw, this.options.credentials(), this.options.allow);
      if (this.stopped) {
        opened.session.destroy();
        return undefined;
      }
      this.session = opened;
      metrics.sessions.inc({ part: 'inlet' });
      if (this.backoff.failures > 0 || this.lastRefusal) logger.info(`inlet: session to relay "${this.options.via}" open again`);
      else logger.debug(`inlet: session to relay "${this.options.via}" open`);
      this.backoff.reset();
      this.lastRefusal = '';
      if (this.options.heartbeat) keepAlive(opened.session, this.options.heartbeat.intervalMs, this.options.heartbeat.timeoutMs);
      opened.session.once('close', () => {
        metrics.sessions.dec({ part: 'inlet' });
        if (this.session === opened) {
          this.session = undefined;
          logger.info(`inlet: session to relay "${this.options.via}" closed; reopening`);
          this.later();
        }
      });
      for (const wake of this.waiters) wake();
      return opened;
    } catch (error) {
      const message = (error as Error).message;
      if (error instanceof PeerRefused) {
        if (message !== this.lastRefusal) logger.warn(`inlet: ${message}`);
        this.lastRefusal = message;
      } else if (this.backoff.failures % 10 === 0) {
        logger.warn(`inlet: no session to relay "${this.options.via}": ${message}; retrying`);
      }
      this.later();
      return undefined;
    }
  }

  private later(): void {
    if (this.stopped || !this.options.control.connected) return;
    clearTimeout(this.retry);
    this.retry = setTimeout(() => this.ensureSession(), this.backoff.next());
  }

  private waitForSession(timeoutMs: number): Promise<InletSession | undefined> {
    if (this.session && !this.session.session.closed && !this.session.session.destroyed) return Promise.resolve(this.session);
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

  private async onClient(socket: Socket): Promise<void> {
    const { metrics, logger } = this.options;
    this.clients.add(socket);
    socket.once('close', () => this.clients.delete(socket));
    socket.on('error', () => socket.destroy());
    socket.pause();
    const session = await this.waitForSession(this.options.clientWaitMs ?? 3000);
    if (!session || socket.destroyed) {
      this.refuse(socket, 'no session to the outlet');
      return;
    }
    let stream;
    try {
      stream = await openTunnel(session.session, 10_000);
    } catch (error) {
      this.refuse(socket, (error as Error).message);
      return;
    }
    this.connections.total += 1;
    this.connections.active += 1;
    metrics.connections.inc({ part: 'inlet' });
    logger.debug(`inlet: client ${socket.remoteAddress}:${socket.remotePort} connected`);
    await joinSocketAndStream(socket, stream);
    this.connections.active -= 1;
    metrics.bytes.inc({ part: 'inlet', direction: 'from_client' }, socket.bytesRead);
    metrics.bytes.inc({ part: 'inlet', direction: 'to_client' }, socket.bytesWritten);
  }

  private refuse(socket: Socket, reason: string): void {
    this.connections.refused += 1;
    this.options.metrics.refusals.inc({ part: 'inlet' });
    if (this.connections.refused === 1 || this.connections.refused % 100 === 0) {
      this.options.logger.warn(`inlet: refused a client on ${this.options.from}: ${reason} (${this.connections.refused} so far)`);
    }
    socket.destroy();
  }
}
