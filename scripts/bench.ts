/**
 * `npm run bench`: the portal against `ssh -L` (a real sshd on loopback) and against no tunnel at all,
 * measured in one run: bulk throughput with iperf3, 64-byte round trips on one connection, and new
 * connection to first byte. Prints the figures and the ratios. Needs iperf3, sshd and ssh (Debian:
 * iperf3, openssh-server, openssh-client). Not part of npm test.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync, readFileSync, chmodSync, mkdirSync } from 'node:fs';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

const root = new URL('..', import.meta.url).pathname;
const bundle = join(root, 'dist/portal.mjs');
const work = mkdtempSync(join(tmpdir(), 'portal-bench-'));
const children: ChildProcess[] = [];
const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const roundTrips = Number(process.env.BENCH_ROUND_TRIPS ?? 2000);
const newConnections = Number(process.env.BENCH_CONNECTIONS ?? 300);
const repeats = Number(process.env.BENCH_REPEATS ?? 3);
const warmUpRoundTrips = 500;
const warmUpConnections = 300;

/**
 * Starts a helper process. Without `ready` its output is discarded: this script blocks in iperf3 runs,
 * and a pipe nobody reads would fill up and stall the writer (iperf3's server prints every second).
 *
 * Each helper gets a session of its own, as a service would: with the kernel's autogroup scheduling
 * (on by default), processes that share a session share one CPU slice, so helpers left in this
 * script's session would be starved beside the embedded controller, which detaches.
 */
function start(command: string, args: string[], env: NodeJS.ProcessEnv = {}, ready?: RegExp): Promise<string> {
  const child = spawn(command, args, { env: { ...process.env, ...env }, detached: true, stdio: ready ? ['ignore', 'pipe', 'pipe'] : 'ignore' });
  children.push(child);
  if (!ready) return Promise.resolve('');
  const lines: string[] = [];
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${command}: no ${ready} in 30 s:\n${lines.join('\n')}`)), 30_000);
    for (const stream of [child.stdout, child.stderr]) {
      createInterface({ input: stream! }).on('line', (line) => {
        lines.push(line);
        if (ready.test(line)) {
          clearTimeout(timer);
          resolve(line);
        }
      });
    }
    child.once('exit', (code) => reject(new Error(`${command} exited ${code}:\n${lines.join('\n')}`)));
  });
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Waits until something accepts connections on the port (ssh -L opens its listener asynchronously). */
async function listening(port: number): Promise<void> {
  for (let attempt = 0; attempt < 300; attempt += 1) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = connect({ host: '127.0.0.1', port }, () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`nothing listens on ${port}`);
}

async function echoServer(): Promise<number> {
  const server = createServer({ noDelay: true }, (socket) => socket.pipe(socket).on('error', () => socket.destroy()));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  server.unref();
  return (server.address() as AddressInfo).port;
}

async function throughput(port: number): Promise<number> {
  const output = execFileSync('iperf3', ['-c', '127.0.0.1', '-p', String(port), '-t', String(seconds), '-J'], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  return (JSON.parse(output) as { end: { sum_received: { bits_per_second: number } } }).end.sum_received.bits_per_second;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

async function pingPong(port: number, count = roundTrips): Promise<number[]> {
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

async function firstByte(port: number, count = newConnections): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < count; i += 1) {
    const started = process.hrtime.bigint();
    const socket: Socket = connect({ host: '127.0.0.1', port, noDelay: true });
    await once(socket, 'connect');
    socket.write('x');
    await once(socket, 'data');
    times.push(Number(process.hrtime.bigint() - started) / 1000);
    socket.destroy();
  }
  return times;
}

/** One sshd on loopback and one `ssh -L` session forwarding a local port to each target. */
async function startSshTunnel(targetPorts: readonly number[]): Promise<number[]> {
  const sshDir = join(work, 'ssh');
  mkdirSync(sshDir, { mode: 0o700 });
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(sshDir, 'host')]);
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(sshDir, 'client')]);
  writeFileSync(join(sshDir, 'authorized_keys'), readFileSync(join(sshDir, 'client.pub')));
  chmodSync(join(sshDir, 'authorized_keys'), 0o600);
  const sshdPort = await freePort();
  const config = join(sshDir, 'sshd_config');
  writeFileSync(
    config,
    [`Port ${sshdPort}`, 'ListenAddress 127.0.0.1', `HostKey ${join(sshDir, 'host')}`, `AuthorizedKeysFile ${join(sshDir, 'authorized_keys')}`, 'PermitRootLogin yes', 'UsePAM no', 'StrictModes no', `PidFile ${join(sshDir, 'sshd.pid')}`, 'AllowTcpForwarding yes', ''].join('\n'),
  );
  mkdirSync('/run/sshd', { recursive: true });
  await start('/usr/sbin/sshd', ['-D', '-e', '-f', config], {}, /Server listening/);
  const localPorts: number[] = [];
  while (localPorts.length < targetPorts.length) localPorts.push(await freePort());
  const forwards = targetPorts.flatMap((target, index) => ['-L', `127.0.0.1:${localPorts[index]}:127.0.0.1:${target}`]);
  const user = process.env.USER ?? 'root';
  await start('ssh', ['-N', '-T', '-i', join(sshDir, 'client'), '-p', String(sshdPort), '-c', 'aes128-gcm@openssh.com', '-o', 'StrictHostKeyChecking=no', '-o', `UserKnownHostsFile=${join(sshDir, 'known_hosts')}`, '-o', 'BatchMode=yes', ...forwards, `${user}@127.0.0.1`]);
  for (const port of localPorts) await listening(port);
  return localPorts;
}

/** A controller, an outlet in front of `targetPort` and an inlet; returns the inlet's port. */
async function startPortal(name: string, targetPort: number, controller: { address: string; home: string }): Promise<number> {
  const portal = (home: string, args: string[]) => execFileSync(process.execPath, [bundle, ...args], { env: { ...process.env, PORTAL_HOME: home }, encoding: 'utf8' }).trim();
  const outletTicket = portal(controller.home, ['project', 'ticket', '--attribute', `${name}-outlet`, '--relay', name]);
  const inletTicket = portal(controller.home, ['project', 'ticket', '--attribute', `${name}-inlet`]);
  const inletPort = await freePort();
  const node = (role: string, config: object, ticket: string) => {
    writeFileSync(join(work, `${name}-${role}.json`), JSON.stringify(config));
    return start(process.execPath, [bundle, 'node', 'create', '--foreground', '--configuration', join(work, `${name}-${role}.json`)], { PORTAL_HOME: join(work, `${name}-${role}`), ENROLLMENT_TICKET: ticket, NODE_LOG_LEVEL: 'warn' }, /setup completed/);
  };
  await node('outlet', { 'http-server-port': 0, relay: name, 'tcp-outlet': { to: `127.0.0.1:${targetPort}`, allow: `${name}-inlet` } }, outletTicket);
  await node('inlet', { 'http-server-port': 0, 'tcp-inlet': { from: `127.0.0.1:${inletPort}`, via: name, allow: `${name}-outlet` } }, inletTicket);
  await listening(inletPort);
  return inletPort;
}

interface Figures {
  throughputGbps: number;
  rttP50: number;
  rttP99: number;
  connectP50: number;
  connectP99: number;
}

async function measure(label: string, bits: number, echoPort: number): Promise<Figures> {
  process.stdout.write(`  measuring ${label}…\n`);
  // Every path warms up first, unmeasured: the first few hundred connections through a Node process
  // run code that is still being compiled, which is start-up cost, not the steady state.
  await pingPong(echoPort, warmUpRoundTrips);
  await firstByte(echoPort, warmUpConnections);
  const rtt = await pingPong(echoPort);
  const connect_ = await firstByte(echoPort);
  return {
    throughputGbps: bits / 1e9,
    rttP50: percentile(rtt, 50),
    rttP99: percentile(rtt, 99),
    connectP50: percentile(connect_, 50) / 1000,
    connectP99: percentile(connect_, 99) / 1000,
  };
}

async function main(): Promise<void> {
  console.log(`Portal benchmark: ${repeats} × ${seconds} s of iperf3 (median), ${roundTrips} round trips of 64 bytes, ${newConnections} new connections, per path, after a warm-up of ${warmUpRoundTrips} and ${warmUpConnections}\n`);
  const iperfPort = await freePort();
  await start('iperf3', ['-s', '-B', '127.0.0.1', '-p', String(iperfPort)]);
  await listening(iperfPort);
  const echoPort = await echoServer();

  const [sshIperf, sshEcho] = (await startSshTunnel([iperfPort, echoPort])) as [number, number];

  const adminHome = join(work, 'admin');
  const enrolled = execFileSync(process.execPath, [bundle, 'enroll'], { env: { ...process.env, PORTAL_HOME: adminHome }, encoding: 'utf8' });
  const controller = { address: /controller (\S+)\./.exec(enrolled)?.[1] ?? '', home: adminHome };
  const portalIperf = await startPortal('iperf', iperfPort, controller);
  const portalEcho = await startPortal('echo', echoPort, controller);

  // Throughput on this shared machine drifts from minute to minute: the paths take turns, and each
  // gets the median of its runs.
  const runs: Record<'direct' | 'ssh' | 'portal', number[]> = { direct: [], ssh: [], portal: [] };
  for (let round = 1; round <= repeats; round += 1) {
    process.stdout.write(`  iperf3 round ${round} of ${repeats}…\n`);
    runs.direct.push(await throughput(iperfPort));
    runs.ssh.push(await throughput(sshIperf));
    runs.portal.push(await throughput(portalIperf));
  }
  const results = {
    direct: await measure('direct', percentile(runs.direct, 50), echoPort),
    'ssh -L': await measure('ssh -L (aes128-gcm)', percentile(runs.ssh, 50), sshEcho),
    portal: await measure('portal (inlet → relay → outlet)', percentile(runs.portal, 50), portalEcho),
  };
  const gbps = (values: number[]) => values.map((bits) => (bits / 1e9).toFixed(2)).join(', ');
  console.log(`\niperf3 runs (Gbit/s): direct ${gbps(runs.direct)}; ssh -L ${gbps(runs.ssh)}; portal ${gbps(runs.portal)}`);

  const row = (name: string, f: Figures) =>
    `${name.padEnd(8)} ${f.throughputGbps.toFixed(2).padStart(8)} Gbit/s   rtt p50 ${f.rttP50.toFixed(0).padStart(5)} µs  p99 ${f.rttP99.toFixed(0).padStart(6)} µs   new conn p50 ${f.connectP50.toFixed(2).padStart(6)} ms  p99 ${f.connectP99.toFixed(2).padStart(6)} ms`;
  console.log('');
  for (const [name, figures] of Object.entries(results)) console.log(row(name, figures));
  const ssh = results['ssh -L'];
  const { portal, direct } = results;
  console.log('');
  console.log(`portal / ssh -L : throughput ${(portal.throughputGbps / ssh.throughputGbps).toFixed(2)}x, rtt p50 ${(portal.rttP50 / ssh.rttP50).toFixed(2)}x, new connection p50 ${(portal.connectP50 / ssh.connectP50).toFixed(2)}x`);
  console.log(`portal / direct : throughput ${(portal.throughputGbps / direct.throughputGbps).toFixed(2)}x, rtt p50 ${(portal.rttP50 / direct.rttP50).toFixed(2)}x, new connection p50 ${(portal.connectP50 / direct.connectP50).toFixed(2)}x`);
  console.log(`floors (issue): throughput >= 0.6x ssh -L: ${portal.throughputGbps >= 0.6 * ssh.throughputGbps ? 'met' : 'NOT met'}; new connection p50 <= 2 ms: ${portal.connectP50 <= 2 ? 'met' : 'NOT met'}`);
}

async function cleanup(): Promise<void> {
  for (const child of children.reverse()) {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
  }
  try {
    execFileSync(process.execPath, [bundle, 'reset', '--yes'], { env: { ...process.env, PORTAL_HOME: join(work, 'admin') }, stdio: 'ignore' });
  } catch {
    // Nothing was enrolled.
  }
  rmSync(work, { recursive: true, force: true });
}

try {
  await main();
} catch (error) {
  console.error(`bench: ${(error as Error).message}`);
  process.exitCode = 1;
} finally {
  await cleanup();
}
