/**
 * The outlet's connections to its target: one per stream, claimed against the bounds before any dial
 * (per inlet node and in all), dialled over TCP or TLS, and counted while they carry a client.
 */
import { connect as connectTcp, type Socket } from 'node:net';
import { parseHostPort, socketHost, type HostPort } from '../shared/address.ts';
import { streamSocketTuning, withSocketTuning } from '../shared/socket-tuning.ts';
import type { IncomingStream } from '../wire/mux.ts';
import { ConnectionCounter, type ConnectionBounds } from './connection-bounds.ts';
import { ByteTally, type ByteTotals } from './byte-tally.ts';
import { FailureStreak } from './failure-streak.ts';
import type { LogThrottle } from './log-throttle.ts';
import type { PortalMetrics } from './metrics.ts';
import { targetConnectTimeoutMs } from './limits.ts';
import { connectTargetTls } from './target-tls.ts';
import type { Path } from './warm-streams.ts';

export interface TargetConnectionsOptions {
  /** The target, host:port. */
  readonly to: string;
  /** Connect to the target over TLS (SNI and verification against the system trust store). */
  readonly tls: boolean;
  /** Target connections held at once, per inlet node and in all. */
  readonly bounds: ConnectionBounds;
  readonly metrics: PortalMetrics;
  /** Warnings that a flood would repeat thousands of times a second. */
  readonly throttled: LogThrottle;
}

export class TargetConnections {
  private readonly target: HostPort;
  private readonly sockets = new Set<Socket>();
  private idleWaiters: (() => void)[] = [];
  private connections = { total: 0, active: 0, failed: 0 };
  /** Target connections held, per inlet node: each is a descriptor. */
  private readonly targets: ConnectionCounter;
  /** Streams and warm streams refused because their inlet, or the outlet, held its bound of target connections. */
  private overBound = 0;
  /** Connections to the target that failed since the last one that connected. */
  private readonly targetFailures = new FailureStreak();
  private readonly bytes = new ByteTally('written');

  constructor(private readonly options: TargetConnectionsOptions) {
    const parsed = parseHostPort(options.to);
    if (!parsed.ok) throw new Error(`outlet target ${options.to}: ${parsed.reason}`);
    this.target = parsed.address;
    this.targets = new ConnectionCounter(options.bounds);
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

  destroyAll(): void {
    for (const socket of this.sockets) socket.destroy();
  }

  describe() {
    return {
      connections_total: this.connections.total,
      connections_active: this.connections.active,
      connections_failed: this.connections.failed,
      /** Connections to the target that failed since the last one that connected. */
      target_failures: this.targetFailures.describe(),
      connections_over_bound: this.overBound,
    };
  }

  /** Bytes sent to the target and read from it, open connections included. */
  carried(): ByteTotals {
    return this.bytes.totals();
  }

  /** A stream of a session: its bytes wait in the target's socket until it connects, then it is accepted. */
  connect(stream: IncomingStream, path: Path, inlet: string): void {
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

  /** Counts a connection to the target while `join` carries it, and its bytes once it is over. */
  private carry(target: Socket, join: () => Promise<void>, path: Path): void {
    const { metrics } = this.options;
    this.connections.total += 1;
    this.connections.active += 1;
    metrics.connections.inc({ part: 'outlet', path });
    metrics.connectionsOpen.inc({ part: 'outlet', path });
    const joined = join();
    this.bytes.carry(target, joined);
    void joined.then(() => {
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
    const target = this.options.tls
      ? connectTargetTls(host, this.target.port, streamSocketTuning.highWaterMark)
      : connectTcp(withSocketTuning({ host, port: this.target.port }, streamSocketTuning));
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
        this.options.throttled.note(
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
    const variable = `PORTAL_OUTLET_CONNECTIONS${claimed === 'inlet' ? '_PER_INLET' : ''}`;
    this.options.throttled.note(
      `bound ${claimed} ${inlet}`,
      (count) =>
        `outlet: refused ${count} connection${count === 1 ? '' : 's'} of inlet ${inlet || '?'}: ${reason} ` +
        `(${variable} sets the bound)`,
    );
    return reason;
  }
}

/** One line on why the target was not reached: for TLS, which check failed. */
export function describeTargetFailure(to: string, error: NodeJS.ErrnoException): string {
  const code = error.code ?? '';
  if (code.startsWith('ERR_TLS_CERT_ALTNAME') || /CERT|SELF_SIGNED|UNABLE_TO/.test(code)) {
    return (
      `the TLS certificate of ${to} does not verify (${code}: ${error.message}); ` +
      'check the target name, or add its CA to NODE_EXTRA_CA_CERTS'
    );
  }
  return `cannot reach ${to} (${code || error.message})`;
}
