/**
 * Hostile peers for the hardening tests and the soak run, all over loopback: a TLS client that floods
 * JSON lines and reads nothing, slow connections that dribble a preamble, and the measurements that
 * judge them (a process's resident memory and descriptors, real clients' errors and latency).
 */
import { readdir, readFile } from 'node:fs/promises';
import { connect as connectTcp, type Socket } from 'node:net';
import { connect as connectTls, type ConnectionOptions, type TLSSocket } from 'node:tls';
import { roundTrip } from './tcp.ts';

export interface Usage {
  readonly rssMb: number;
  readonly fds: number;
}

/** Resident memory and open descriptors of a process, from /proc. */
export async function usageOf(pid: number): Promise<Usage> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const rssKb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  const fds = (await readdir(`/proc/${pid}/fd`)).length;
  return { rssMb: Math.round(rssKb / 102.4) / 10, fds };
}

/** Samples `usageOf` every 100 ms until stopped; the peak of each. */
export function watchUsage(pid: number): { stop(): Promise<Usage> } {
  let peak: Usage = { rssMb: 0, fds: 0 };
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const now = await usageOf(pid).catch(() => peak);
      peak = { rssMb: Math.max(peak.rssMb, now.rssMb), fds: Math.max(peak.fds, now.fds) };
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      return peak;
    },
  };
}

export interface ClientLoad {
  readonly attempts: number;
  readonly errors: number;
  readonly p99Ms: number;
  /** Errors by what they were: an error code, `no answer within 5000 ms`, or `wrong answer`. */
  readonly errorKinds: Readonly<Record<string, number>>;
}

/** Real clients through a portal: one echo round trip every `everyMs` until stopped. */
export function realClients(port: number, everyMs = 50): { stop(): Promise<ClientLoad> } {
  const latencies: number[] = [];
  let errors = 0;
  const errorKinds: Record<string, number> = {};
  const failed = (kind: string) => {
    errors += 1;
    errorKinds[kind] = (errorKinds[kind] ?? 0) + 1;
  };
  let stopped = false;
  const loop = (async () => {
    for (let i = 0; !stopped; i += 1) {
      const payload = Buffer.from(`real client ${i}`);
      const started = performance.now();
      try {
        const answer = await withTimeout(roundTrip(port, payload), 5000);
        if (!answer.equals(payload)) failed('wrong answer');
      } catch (error) {
        failed((error as NodeJS.ErrnoException).code ?? (error as Error).message);
      }
      latencies.push(performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      const sorted = [...latencies].sort((a, b) => a - b);
      return {
        attempts: latencies.length,
        errors,
        p99Ms: Math.round((sorted[Math.floor(sorted.length * 0.99)] ?? 0) * 10) / 10,
        errorKinds,
      };
    },
  };
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    promise.then(
      (value) => (clearTimeout(timer), resolve(value)),
      (error: unknown) => (clearTimeout(timer), reject(error as Error)),
    );
  });
}

export interface FloodResult {
  /** Connections the flood opened (it opens another whenever one is closed). */
  readonly connections: number;
  /** Lines handed to the kernel, of all connections. */
  readonly linesSent: number;
}

/**
 * TLS connections to `host:port` that write `{"op":"ping"}` lines as fast as the connection takes
 * them and never read an answer, for `durationMs`, from `localAddress`; with `credentials`, as that
 * member.
 */
export async function floodPings(
  address: string,
  durationMs: number,
  credentials?: { key: string; certificate: string },
  parallel = 1,
  localAddress = '127.0.0.1',
): Promise<FloodResult> {
  const [host, port] = splitAddress(address);
  const line = Buffer.from('{"op":"ping","id":1}\n'.repeat(512));
  let connections = 0;
  let linesSent = 0;
  const deadline = Date.now() + durationMs;
  const one = async () => {
    while (Date.now() < deadline) {
      connections += 1;
      await new Promise<void>((resolve) => {
        // localAddress is a socket option tls.connect passes on; @types/node does not list it there.
        const options = {
          host,
          port,
          localAddress,
          rejectUnauthorized: false,
          ...(credentials ? { key: credentials.key, cert: credentials.certificate } : {}),
        };
        const socket: TLSSocket = connectTls(options as ConnectionOptions);
        // Never read: the answers are left in the kernel's buffers and then in the controller's.
        socket.pause();
        const timer = setTimeout(() => socket.destroy(), Math.max(0, deadline - Date.now()));
        socket.once('close', () => (clearTimeout(timer), resolve()));
        socket.on('error', () => socket.destroy());
        socket.once('secureConnect', () => {
          const write = () => {
            while (!socket.destroyed && Date.now() < deadline && socket.write(line)) linesSent += 512;
          };
          socket.on('drain', write);
          write();
        });
      });
    }
  };
  await Promise.all(Array.from({ length: parallel }, one));
  return { connections, linesSent };
}

export interface SlowConnections {
  /** Connections the controller has closed so far. */
  closed(): number;
  readonly opened: number;
  stop(): void;
}

/**
 * `count` connections from `localAddress` that send `PORTAL-SPLICE` and then one byte every
 * `everyMs`, as a slowloris would: each stays open until the server closes it.
 */
export async function slowSplices(
  address: string,
  localAddress: string,
  count: number,
  everyMs = 1000,
): Promise<SlowConnections> {
  const [host, port] = splitAddress(address);
  const sockets: Socket[] = [];
  let closed = 0;
  await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<void>((resolve) => {
          const socket = connectTcp({ host, port, localAddress });
          sockets.push(socket);
          socket.on('error', () => undefined);
          socket.once('close', () => {
            closed += 1;
            resolve();
          });
          socket.once('connect', () => {
            socket.write('PORTAL-SPLICE');
            resolve();
          });
        }),
    ),
  );
  const drip = setInterval(() => {
    for (const socket of sockets) if (!socket.destroyed) socket.write(' ');
  }, everyMs);
  return {
    closed: () => closed,
    opened: count,
    stop() {
      clearInterval(drip);
      for (const socket of sockets) socket.destroy();
    },
  };
}

function splitAddress(address: string): [string, number] {
  const colon = address.lastIndexOf(':');
  return [address.slice(0, colon).replace(/^\[|\]$/g, ''), Number(address.slice(colon + 1))];
}
