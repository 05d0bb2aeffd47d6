/**
 * Node.js versions side by side on the data path's cryptography: a bare mutual TLS 1.3 pair (node:tls,
 * the data path's socket options, the project's own certificates) between two processes over loopback,
 * per TLS 1.3 suite: bulk throughput and CPU time for COMPARE_GIB GiB one way, and 64-byte round trips
 * on one connection. Nothing of Portal's own code is on the path, so this measures the runtime alone.
 *
 *   npx tsx scripts/runtime-compare.ts 20 24      each version through scripts/with-node.sh, interleaved
 *   node --import tsx scripts/runtime-compare.ts  the running Node.js only, one JSON line
 *
 * COMPARE_GIB (2), COMPARE_ROUND_TRIPS (20000), COMPARE_REPEATS (2). Not part of npm test.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { connect, createServer, type ConnectionOptions, type TLSSocket, type TlsOptions } from 'node:tls';
import { createAuthority, createCertificateRequest, issueCertificate, type Authority } from '../src/pki/authority.ts';
import { generateKeyPair } from '../src/pki/keys.ts';
import { dataPathHighWaterMark } from '../src/shared/socket-tuning.ts';

const suites = ['TLS_AES_128_GCM_SHA256', 'TLS_AES_256_GCM_SHA384', 'TLS_CHACHA20_POLY1305_SHA256'] as const;
const gib = Number(process.env.COMPARE_GIB ?? 2);
const roundTrips = Number(process.env.COMPARE_ROUND_TRIPS ?? 20_000);
const repeats = Number(process.env.COMPARE_REPEATS ?? 2);
const warmUpRoundTrips = 1000;
const chunk = Buffer.alloc(1024 * 1024, 0x5a);
const message = Buffer.alloc(64, 0x61);
const script = new URL(import.meta.url).pathname;
const root = join(script, '../..');

interface Credentials {
  readonly ca: string;
  readonly key: string;
  readonly cert: string;
}

interface SuiteFigures {
  readonly suite: string;
  readonly gbitPerSecond: number;
  readonly cpuSecondsPerGib: number;
  /** The sender's part of cpuSecondsPerGib; the rest is the receiver's. */
  readonly senderCpuSecondsPerGib: number;
  /** What one read delivered to the receiver, on average. */
  readonly receiverReadKib: number;
  readonly roundTripP50Us: number;
  readonly roundTripP99Us: number;
}

interface RunFigures {
  readonly node: string;
  readonly openssl: string;
  readonly suites: readonly SuiteFigures[];
}

function credentials(authority: Authority, nodeId: string): Credentials {
  const keys = generateKeyPair();
  const request = createCertificateRequest(keys.privateKey, keys.publicKey, nodeId);
  const identity = {
    projectId: 'compare',
    nodeId,
    attributes: [],
    relays: [],
    admin: false,
    tls: false,
    relayNode: false,
  };
  const cert = issueCertificate({ authority, request, identity, lifetimeMs: 3600_000, dnsNames: ['localhost'] });
  return { ca: authority.certificate, key: keys.privateKey, cert };
}

/** A stream option the sockets pass on, as on the data path; @types/node does not list it for TLS. */
interface SocketTuning {
  readonly highWaterMark: number;
}

const cpuSeconds = (usage: NodeJS.CpuUsage) => (usage.user + usage.system) / 1e6;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

/**
 * The receiving end, in a process of its own. The first byte of a connection picks its job: 'B' then an
 * 8-byte length: read that much and answer one byte, then report this process's CPU time for it; 'P':
 * echo everything.
 */
async function receive(): Promise<void> {
  const [message] = (await once(process, 'message')) as [{ readonly credentials: Credentials; readonly suite: string }];
  const { ca, key, cert } = message.credentials;
  const server = createServer(
    {
      ca,
      key,
      cert,
      requestCert: true,
      rejectUnauthorized: true,
      minVersion: 'TLSv1.3',
      ciphers: message.suite,
      highWaterMark: dataPathHighWaterMark,
    } satisfies TlsOptions & SocketTuning,
    (socket) => {
      socket.setNoDelay(true);
      let header = Buffer.alloc(0);
      const onHeader = (data: Buffer) => {
        header = Buffer.concat([header, data]);
        if (header[0] === 0x50) {
          socket.off('data', onHeader);
          socket.write(header.subarray(1));
          socket.pipe(socket);
        } else if (header.length >= 9) {
          socket.off('data', onHeader);
          const total = Number(header.readBigUInt64BE(1));
          const start = process.cpuUsage();
          let received = header.length - 9;
          let reads = 0;
          const onData = (data: Buffer) => {
            received += data.length;
            reads += 1;
            if (received < total) return;
            socket.off('data', onData);
            socket.write('k');
            process.send?.({ cpuSeconds: cpuSeconds(process.cpuUsage(start)), reads });
          };
          socket.on('data', onData);
          onData(Buffer.alloc(0));
        }
      };
      socket.on('data', onHeader);
    },
  );
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    process.send?.({ port: typeof address === 'object' && address ? address.port : 0 });
  });
  process.on('disconnect', () => process.exit(0));
}

async function open(port: number, own: Credentials, suite: string): Promise<TLSSocket> {
  const options: ConnectionOptions & SocketTuning = {
    host: '127.0.0.1',
    port,
    servername: 'localhost',
    ca: own.ca,
    key: own.key,
    cert: own.cert,
    minVersion: 'TLSv1.3',
    ciphers: suite,
    highWaterMark: dataPathHighWaterMark,
  };
  const socket = connect(options);
  await once(socket, 'secureConnect');
  socket.setNoDelay(true);
  if (socket.getCipher().standardName !== suite)
    throw new Error(`negotiated ${socket.getCipher().standardName}, not ${suite}`);
  return socket;
}

async function measureSuite(suite: string, client: Credentials, server: Credentials): Promise<SuiteFigures> {
  // Its own session: with autogroup scheduling, processes of one session share one CPU slice.
  const receiver: ChildProcess = spawn(process.execPath, [...process.execArgv, script, '--receive'], {
    detached: true,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  try {
    receiver.send({ credentials: server, suite });
    const [{ port }] = (await once(receiver, 'message')) as [{ readonly port: number }];

    const bulk = await open(port, client, suite);
    const total = Math.round(gib * 1024 ** 3);
    const header = Buffer.alloc(9);
    header[0] = 0x42;
    header.writeBigUInt64BE(BigInt(total), 1);
    const reported = once(receiver, 'message') as Promise<[{ readonly cpuSeconds: number; readonly reads: number }]>;
    const acknowledged = once(bulk, 'data');
    const cpuStart = process.cpuUsage();
    const started = process.hrtime.bigint();
    bulk.write(header);
    for (let sent = 0; sent < total; sent += chunk.length) {
      if (!bulk.write(chunk)) await once(bulk, 'drain');
    }
    await acknowledged;
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const senderCpu = cpuSeconds(process.cpuUsage(cpuStart));
    const [{ cpuSeconds: receiverCpu, reads }] = await reported;
    bulk.destroy();

    const ping = await open(port, client, suite);
    ping.write('P');
    const times: number[] = [];
    let pending = 0;
    let resolveTrip: () => void = () => undefined;
    ping.on('data', (data: Buffer) => {
      pending -= data.length;
      if (pending <= 0) resolveTrip();
    });
    for (let trip = 0; trip < warmUpRoundTrips + roundTrips; trip += 1) {
      const answered = new Promise<void>((resolve) => (resolveTrip = resolve));
      pending = message.length;
      const sentAt = process.hrtime.bigint();
      ping.write(message);
      await answered;
      if (trip >= warmUpRoundTrips) times.push(Number(process.hrtime.bigint() - sentAt) / 1000);
    }
    ping.destroy();
    return {
      suite,
      gbitPerSecond: (total * 8) / seconds / 1e9,
      cpuSecondsPerGib: (senderCpu + receiverCpu) / (total / 1024 ** 3),
      senderCpuSecondsPerGib: senderCpu / (total / 1024 ** 3),
      receiverReadKib: total / reads / 1024,
      roundTripP50Us: percentile(times, 50),
      roundTripP99Us: percentile(times, 99),
    };
  } finally {
    // The receiver exits when its channel closes; it is killed only when the channel is already gone.
    if (receiver.connected) receiver.disconnect();
    else receiver.kill();
  }
}

/** Every suite on the running Node.js; prints one JSON line. */
async function measure(): Promise<void> {
  const authority = createAuthority('compare');
  const [client, server] = [credentials(authority, 'sender'), credentials(authority, 'receiver')];
  const figures: SuiteFigures[] = [];
  for (const suite of suites) figures.push(await measureSuite(suite, client, server));
  const run: RunFigures = { node: process.version, openssl: process.versions.openssl, suites: figures };
  process.stdout.write(`${JSON.stringify(run)}\n`);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/** Each version through with-node.sh, the versions interleaved so that a busy moment hits them alike. */
function compare(versions: readonly string[]): void {
  const runs = new Map<string, RunFigures[]>(versions.map((version) => [version, []]));
  for (let repeat = 0; repeat < repeats; repeat += 1) {
    for (const version of versions) {
      const output = execFileSync(
        'bash',
        [join(root, 'scripts/with-node.sh'), version, 'node', '--import', 'tsx', script],
        { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] },
      );
      const run = JSON.parse(output.trim().split('\n').at(-1) as string) as RunFigures;
      runs.get(version)?.push(run);
      process.stderr.write(`runtime-compare: ${run.node} run ${repeat + 1} of ${repeats} done\n`);
    }
  }
  console.log(
    `mutual TLS 1.3 over loopback, two processes: ${gib} GiB one way, ${roundTrips} round trips of 64 bytes; ` +
      `median of ${repeats} runs`,
  );
  console.log(
    'node      openssl    suite                          Gbit/s (min-max)    CPU s/GiB (sender)  ' +
      'RTT p50 µs  RTT p99 µs',
  );
  for (const [version, list] of runs) {
    for (const suite of suites) {
      const of = list.map((run) => run.suites.find((figures) => figures.suite === suite) as SuiteFigures);
      const first = list[0] as RunFigures;
      console.log(
        [
          first.node.padEnd(9),
          first.openssl.padEnd(10),
          suite.padEnd(30),
          median(of.map((f) => f.gbitPerSecond))
            .toFixed(2)
            .padStart(6),
          (
            `(${Math.min(...of.map((f) => f.gbitPerSecond)).toFixed(1)}-` +
            `${Math.max(...of.map((f) => f.gbitPerSecond)).toFixed(1)})`
          ).padEnd(11),
          median(of.map((f) => f.cpuSecondsPerGib))
            .toFixed(2)
            .padStart(10),
          `(${median(of.map((f) => f.senderCpuSecondsPerGib)).toFixed(2)})`.padEnd(8),
          median(of.map((f) => f.roundTripP50Us))
            .toFixed(0)
            .padStart(11),
          median(of.map((f) => f.roundTripP99Us))
            .toFixed(0)
            .padStart(11),
        ].join(' '),
      );
    }
    if (version !== versions.at(-1)) console.log('');
  }
}

const args = process.argv.slice(2);
if (args[0] === '--receive') await receive();
else if (args.length === 0) await measure();
else compare(args);
