/** The measurements made against one port: iperf3 throughput, 64-byte round trips, new connection to first byte. */
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { connect } from 'node:net';
import { promisify } from 'node:util';
import { totalCpuSeconds } from './proc-stats.ts';
import { settings } from './settings.ts';

const run = promisify(execFile);

export interface IperfResult {
  readonly bitsPerSecond: number;
  readonly bytes: number;
}

/** One iperf3 client run, for `seconds` or until `bytes` are sent (iperf3 reads 1G as 2^30). */
export async function iperf(port: number, limit: { seconds: number } | { bytes: number }): Promise<IperfResult> {
  const length = 'seconds' in limit ? ['-t', String(limit.seconds)] : ['-n', String(limit.bytes)];
  const { stdout } = await run('iperf3', ['-c', '127.0.0.1', '-p', String(port), ...length, '-J'], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  const received = (JSON.parse(stdout) as { end: { sum_received: { bits_per_second: number; bytes: number } } }).end
    .sum_received;
  return { bitsPerSecond: received.bits_per_second, bytes: received.bytes };
}

export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

/** Round-trip times in µs of 64-byte messages on one connection. */
export async function pingPong(port: number, count: number): Promise<number[]> {
  const socket = connect({ host: '127.0.0.1', port, noDelay: true });
  await once(socket, 'connect');
  const message = Buffer.alloc(64, 7);
  const times: number[] = [];
  for (let i = 0; i < count; i += 1) {
    const started = process.hrtime.bigint();
    socket.write(message);
    let received = 0;
    while (received < 64) received += ((await once(socket, 'data')) as [Buffer])[0].length;
    times.push(Number(process.hrtime.bigint() - started) / 1000);
  }
  socket.destroy();
  return times;
}

/** Times in ms from connect() to the echo of the first byte, one new connection after another. */
export async function firstByte(port: number, count: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < count; i += 1) {
    const started = process.hrtime.bigint();
    const socket = connect({ host: '127.0.0.1', port, noDelay: true });
    await once(socket, 'connect');
    socket.write('x');
    await once(socket, 'data');
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
    socket.destroy();
  }
  return times;
}

export interface Latency {
  readonly rttP50: number;
  readonly rttP99: number;
  readonly connectP50: number;
  readonly connectP99: number;
  /** CPU µs per round trip and per new connection, summed over `pids` (undefined without processes). */
  readonly rttCpu: number | undefined;
  readonly connectCpu: number | undefined;
}

/**
 * Warms a target up, unmeasured: the first few thousand connections through a Node process run code
 * that is still being compiled (settings.warmUpConnections), which is start-up cost, not the steady
 * state of a tunnel that runs for days.
 */
export async function warmUp(echoPort: number): Promise<void> {
  await pingPong(echoPort, settings.warmUpRoundTrips);
  await firstByte(echoPort, settings.warmUpConnections);
}

/** Round trips, then new connections, through one echo port; the CPU each cost the processes `pids()`. */
export async function latency(echoPort: number, pids: () => number[] = () => []): Promise<Latency> {
  const cpuPer = async <T>(count: number, measure: () => Promise<T>): Promise<[T, number | undefined]> => {
    const before = pids();
    const started = totalCpuSeconds(before);
    const result = await measure();
    // Processes that came or went meanwhile would skew the sum: none is reported then.
    const after = pids();
    const same = after.length > 0 && after.length === before.length && after.every((pid, i) => pid === before[i]);
    return [result, same ? ((totalCpuSeconds(after) - started) / count) * 1e6 : undefined];
  };
  const [rtt, rttCpu] = await cpuPer(settings.roundTrips, () => pingPong(echoPort, settings.roundTrips));
  const [connects, connectCpu] = await cpuPer(settings.newConnections, () =>
    firstByte(echoPort, settings.newConnections),
  );
  return {
    rttP50: percentile(rtt, 50),
    rttP99: percentile(rtt, 99),
    connectP50: percentile(connects, 50),
    connectP99: percentile(connects, 99),
    rttCpu,
    connectCpu,
  };
}
