/**
 * The outlet: registers its relay with the controller (again after every reconnect), answers each dial
 * by joining the splice and accepting the inlet's end-to-end session, and connects each CONNECT stream
 * of those sessions to its target.
 */
import { connect as connectTcp, type NetConnectOpts, type Socket } from 'node:net';
import type { Http2Server, ServerHttp2Stream } from 'node:http2';
import { parseHostPort, type HostPort } from '../shared/address.ts';
import { PortalError } from '../shared/errors.ts';
import { dataPathHighWaterMark } from '../shared/socket-tuning.ts';
import { acceptOutletChannel, adoptOutletSession, createSessionServer, PeerRefused, type Channel } from '../wire/e2e-session.ts';
import { readOneJsonLine } from '../wire/json-lines.ts';
import { dialSplice } from '../wire/splice.ts';
import { joinSocketAndStream, joinSockets, keepAlive } from '../wire/tunnel-streams.ts';
import type { PartContext, PartStatus } from './part.ts';
import { connectTargetTls } from './target-tls.ts';

export interface OutletOptions extends PartContext {
  readonly relay: string;
  readonly to: string;
  readonly allow: string;
  /** Connect to the target over TLS (SNI and verification against the system trust store). */
  readonly tls?: boolean;
  /** Called once if the controller refuses the registration for good (a relay the ticket does not grant). */
  readonly onFatal: (error: PortalError) => void;
}

export class Outlet {
  status: PartStatus = 'starting';
  private readonly server: Http2Server;
  private readonly target: HostPort;
  private readonly sessions = new Set<{ close(): void; destroy(): void }>();
  private readonly sockets = new Set<Socket>();
  /** Warm streams by the inlet node they came from: closed with it when its session's heartbeat is lost. */
  private readonly streamsByPeer = new Map<string, Set<Socket>>();
  private connections = { total: 0, active: 0, failed: 0 };
  private lastRefusal = { message: '', at: 0 };

  constructor(private readonly options: OutletOptions) {
    const parsed = parseHostPort(options.to);
    if (!parsed.ok) throw new Error(`outlet target ${options.to}: ${parsed.reason}`);
    this.target = parsed.address;
    this.server = createSessionServer();
    this.server.on('stream', (stream, headers) => this.onStream(stream, headers[':method']));
  }

  start(): void {
    const { control } = this.options;
    control.on('up', () => void this.register());
    control.on('down', () => {
      if (this.status === 'up') this.status = 'waiting';
    });
    control.on('event', (event: { event?: string; splice?: string; secret?: string }) => {
      if (event.event === 'dial' && event.splice && event.secret) void this.answerDial(event.splice, event.secret);
    });
    if (control.connected) void this.register();
  }

  stop(): void {
    for (const session of this.sessions) session.destroy();
    for (const socket of this.sockets) socket.destroy();
  }

  describe() {
    return {
      relay: this.options.relay,
      to: this.options.to,
      allow: this.options.allow,
      status: this.status,
      sessions: this.sessions.size,
      connections_total: this.connections.total,
      connections_active: this.connections.active,
      connections_failed: this.connections.failed,
    };
  }

  private async register(): Promise<void> {
    try {
      await this.options.control.request('register', { relay: this.options.relay });
      if (this.status !== 'up') this.options.logger.info(`outlet: relay "${this.options.relay}" registered; forwarding to ${this.options.to}`);
      this.status = 'up';
    } catch (error) {
      if (error instanceof PortalError && error.code === 'RELAY_NOT_GRANTED') {
        this.status = 'failed';
        this.options.onFatal(error);
      }
      // Anything else: the channel dropped; 'up' will come again.
    }
  }

  private async answerDial(splice: string, secret: string): Promise<void> {
    const { logger, metrics } = this.options;
    try {
      const raw = await dialSplice(this.options.controller, splice, 'outlet', secret, true);
      const channel = await acceptOutletChannel(raw, this.options.credentials(), this.options.allow);
      if (channel.mode === 'stream') {
        void this.serveStream(channel);
        return;
      }
      const { session, peer } = await adoptOutletSession(channel, this.server);
      this.sessions.add(session);
      metrics.sessions.inc({ part: 'outlet' });
      logger.debug(`outlet: session from inlet ${peer?.nodeId ?? '?'}`);
      const closePeerStreams = () => {
        for (const socket of this.streamsByPeer.get(peer?.nodeId ?? '') ?? []) socket.destroy(new Error('the inlet stopped answering'));
      };
      if (this.options.heartbeat) keepAlive(session, this.options.heartbeat.intervalMs, this.options.heartbeat.timeoutMs, closePeerStreams);
      session.once('close', () => {
        this.sessions.delete(session);
        metrics.sessions.dec({ part: 'outlet' });
      });
    } catch (error) {
      if (error instanceof PeerRefused) this.logRefusal(error.message);
      else logger.debug(`outlet: session failed: ${(error as Error).message}`);
    }
  }

  /**
   * A warm stream waits for its client: one line opens it, then the target is dialled and the bytes
   * flow as they are. Bytes the client sent meanwhile wait in the TLS socket.
   */
  private async serveStream(channel: Channel): Promise<void> {
    const { socket, peer } = channel;
    const key = peer?.nodeId ?? '';
    const streams = this.streamsByPeer.get(key) ?? new Set<Socket>();
    this.streamsByPeer.set(key, streams);
    streams.add(socket);
    socket.once('close', () => {
      streams.delete(socket);
      if (streams.size === 0) this.streamsByPeer.delete(key);
    });
    let opened = false;
    socket.once('end', () => {
      // The inlet gave up a warm stream it never used.
      if (!opened) socket.destroy();
    });
    try {
      const open = (await readOneJsonLine(socket, 0)) as { open?: unknown };
      if (open?.open !== true) throw new Error('not an open request');
      opened = true;
    } catch {
      socket.destroy();
      return;
    }
    const { target, ready } = this.dialTarget();
    // The inlet gave up while the target was still connecting.
    socket.once('close', () => {
      if (!ready.settled) target.destroy();
    });
    ready.promise.then(
      () => this.carry(target, () => joinSockets(socket, target)),
      () => socket.destroy(),
    );
  }

  /** Counts a connection to the target while `join` carries it, and its bytes once it is over. */
  private carry(target: Socket, join: () => Promise<void>): void {
    const { metrics } = this.options;
    this.connections.total += 1;
    this.connections.active += 1;
    metrics.connections.inc({ part: 'outlet' });
    void join().then(() => {
      this.connections.active -= 1;
      metrics.bytes.inc({ part: 'outlet', direction: 'to_target' }, target.bytesWritten);
      metrics.bytes.inc({ part: 'outlet', direction: 'from_target' }, target.bytesRead);
    });
  }

  /**
   * Connects to the target, over TLS when the outlet is configured so; `ready` settles once the
   * connection (and its handshake) is complete, and a failure has been counted and logged.
   */
  private dialTarget(): { target: Socket; ready: { promise: Promise<void>; settled: boolean } } {
    const host = this.target.host.replace(/^\[|\]$/g, '');
    // highWaterMark is a stream option the Socket constructor passes on; @types/node does not list it.
    const target = this.options.tls
      ? connectTargetTls(host, this.target.port, dataPathHighWaterMark)
      : connectTcp({ host, port: this.target.port, allowHalfOpen: true, noDelay: true, highWaterMark: dataPathHighWaterMark } as NetConnectOpts);
    this.sockets.add(target);
    target.once('close', () => this.sockets.delete(target));
    const ready = { settled: false, promise: Promise.resolve() };
    ready.promise = new Promise<void>((resolve, reject) => {
      const onError = (error: NodeJS.ErrnoException) => {
        ready.settled = true;
        this.connections.failed += 1;
        this.options.logger.warn(`outlet: ${describeTargetFailure(this.options.to, error)}`);
        target.destroy();
        reject(error);
      };
      target.once('error', onError);
      target.once(this.options.tls ? 'secureConnect' : 'connect', () => {
        ready.settled = true;
        target.off('error', onError);
        resolve();
      });
    });
    return { target, ready };
  }

  /** A refused inlet retries; say so when it starts and then once a minute, not at every attempt. */
  private logRefusal(message: string): void {
    const now = Date.now();
    if (message === this.lastRefusal.message && now - this.lastRefusal.at < 60_000) return;
    this.lastRefusal = { message, at: now };
    this.options.logger.warn(`outlet: refused an inlet: ${message}`);
  }

  private onStream(stream: ServerHttp2Stream, method: string | undefined): void {
    // A reset or a destroyed session emits 'error' on the stream; it must not take the node down.
    stream.on('error', () => stream.destroy());
    if (method !== 'CONNECT') {
      stream.respond({ ':status': 405 }, { endStream: true });
      return;
    }
    const { target, ready } = this.dialTarget();
    stream.once('close', () => {
      if (!ready.settled) target.destroy();
    });
    ready.promise.then(
      () => {
        stream.respond({ ':status': 200 });
        this.carry(target, () => joinSocketAndStream(target, stream));
      },
      () => {
        if (!stream.headersSent && !stream.closed) stream.respond({ ':status': 502 }, { endStream: true });
      },
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
