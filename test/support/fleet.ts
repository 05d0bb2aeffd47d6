/**
 * A fleet of nodes simulated in this process against controller replicas that are real processes on
 * one PostgreSQL database (`npm run fleet`, and its short form in the suite). Each simulated node is
 * the node's own control-protocol client: it generates its key, enrolls with a ticket over a fresh
 * connection, then holds its standing connection (`StandingChannel`, heartbeats included), renews on
 * it and hears what the controllers push. Each connects from a loopback address of its own, as nodes
 * come from addresses of their own (the controllers bound what one address may start).
 *
 * Measured: enrollments per second; renewals per second with every node renewing at once; the
 * controllers' CPU per renewal (their processes' user and system time over the renewals); the growth
 * of each replica's resident memory per node it holds idle; and how long a revocation and a relay's
 * arrival take to reach every node, from the moment they are made.
 */
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { adminRequest } from '../../src/cli/administrator.ts';
import { adminCodeAt } from '../../src/cli/enroll.ts';
import { adminDirectory } from '../../src/cli/home.ts';
import { createLogger } from '../../src/node/logger.ts';
import { StandingChannel } from '../../src/node/standing-channel.ts';
import { enrollAdministrator } from '../../src/node/enrollment.ts';
import { createCertificateRequest } from '../../src/pki/authority.ts';
import { generateKeyPair } from '../../src/pki/keys.ts';
import { ServiceChannel, type ServiceTarget } from '../../src/wire/control-channel.ts';
import type { ControllerOperations } from '../../src/wire/protocol.ts';
import { decodeTicket } from '../../src/wire/ticket.ts';
import { startControllerReplicas, type ControllerReplicas } from './controller-replicas.ts';
import { startPostgres, type Postgres } from './postgres.ts';
import { portalBundle, start, type Running } from './processes.ts';
import { ticketInProcess } from './ticket-in-process.ts';

export interface FleetFigures {
  readonly nodes: number;
  readonly replicas: number;
  readonly enrollmentsPerSecond: number;
  readonly renewalsPerSecond: number;
  /** The replicas' CPU time over the renewals, per renewal. */
  readonly cpuPerRenewalMs: number;
  readonly cpuPerEnrollmentMs: number;
  /** Each replica's growth in resident memory per node it holds idle, in bytes. */
  readonly idleBytesPerNode: readonly number[];
  /** How long each pushed event took to reach every node: p50, p99 and the last, in ms. */
  readonly revocation: Reach;
  readonly relayAnnounced: Reach;
  /** Standing connections lost (and made again by the node) over the run, and renewals that waited for one. */
  readonly connectionsLost: number;
  readonly renewalsRetried: number;
}

export interface Reach {
  readonly reached: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly lastMs: number;
}

export interface FleetOptions {
  readonly nodes: number;
  readonly replicas?: number;
  /** Enrollments and connections under way at once. @default 64 */
  readonly concurrency?: number;
  readonly log?: (line: string) => void;
  /** More environment for the controller replicas (FLEET_CONTROLLER_NODE_OPTIONS: a profile, say). */
  readonly controllerEnv?: NodeJS.ProcessEnv;
}

interface SimulatedNode {
  readonly index: number;
  readonly keys: { privateKey: string; publicKey: string };
  readonly target: ServiceTarget;
  certificate?: string;
  nodeId?: string;
  channel?: StandingChannel<ControllerOperations>;
  /** Times its standing connection was lost. */
  lost: number;
  /** performance.now() when each pushed event kind first arrived. */
  readonly heard: Map<string, number>;
}

const quiet = createLogger({ enabled: false });

/** A loopback address of its own for the node at `index` (127.10.0.1 and on; the whole of 127/8 is loopback). */
const sourceOf = (index: number) => `127.10.${Math.floor(index / 250)}.${(index % 250) + 1}`;

/** CPU time (user and system) of a process so far, in ms, from /proc. */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  // utime and stime are fields 14 and 15 of stat, 12 and 13 after the name; in clock ticks of 10 ms.
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** Resident memory of a process, in bytes. */
function residentBytes(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((candidate) => candidate.startsWith('VmRSS:'));
  return Number(line?.split(/\s+/)[1] ?? 0) * 1024;
}

/** Runs `work` over `items` with at most `limit` under way at once. */
async function eachLimited<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++] as T);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

function reach(nodes: readonly SimulatedNode[], kind: string, from: number): Reach {
  const times = nodes
    .map((node) => node.heard.get(kind))
    .filter((at): at is number => at !== undefined)
    .map((at) => at - from)
    .sort((a, b) => a - b);
  const at = (share: number) =>
    Math.round(times[Math.min(times.length - 1, Math.ceil(share * times.length) - 1)] ?? -1);
  return { reached: times.length, p50Ms: at(0.5), p99Ms: at(0.99), lastMs: Math.round(times.at(-1) ?? -1) };
}

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function runFleet(options: FleetOptions): Promise<FleetFigures> {
  const log = options.log ?? (() => undefined);
  const count = options.replicas ?? 3;
  const concurrency = options.concurrency ?? 64;
  const dir = await mkdtemp(join(tmpdir(), 'portal-fleet-'));
  let postgres: Postgres | undefined;
  let controllers: ControllerReplicas | undefined;
  let relay: Running | undefined;
  const nodes: SimulatedNode[] = [];
  try {
    log(`starting PostgreSQL and ${count} controller replicas`);
    postgres = await startPostgres();
    postgres.createDatabase('fleet');
    const store = `postgres://${postgres.user}@127.0.0.1:${postgres.port}/fleet`;
    controllers = await startControllerReplicas({
      dir,
      store,
      password: postgres.password,
      count,
      ...(options.controllerEnv ? { env: options.controllerEnv } : {}),
    });
    const replicas = controllers;
    const pids = Array.from({ length: count }, (_, index) => replicas.process(index)?.child.pid as number);
    const cpu = () => pids.reduce((sum, pid) => sum + cpuMs(pid), 0);
    const adminHome = join(dir, 'admin');
    await enrollAdministrator(
      adminDirectory(adminHome),
      adminCodeAt(replicas.first.adminCode, replicas.first.listening),
      'default',
    );

    log(`generating ${options.nodes} keys`);
    const perTicket = 500;
    const tickets: ReturnType<typeof decodeTicket>[] = [];
    for (let issued = 0; issued < options.nodes; issued += perTicket) {
      const uses = String(Math.min(perTicket, options.nodes - issued));
      tickets.push(decodeTicket(await ticketInProcess(adminHome, ['--attribute', 'fleet', '--usage-count', uses])));
    }
    const fingerprint = tickets[0]?.fingerprint ?? '';
    for (let index = 0; index < options.nodes; index++) {
      nodes.push({
        index,
        keys: generateKeyPair(),
        target: {
          service: 'control',
          address: replicas.addresses[index % count] as string,
          fingerprint,
          localAddress: sourceOf(index),
        },
        heard: new Map(),
        lost: 0,
      });
    }

    log(`enrolling ${options.nodes} nodes, ${concurrency} at a time`);
    const enrollCpu = cpu();
    const enrollStart = performance.now();
    await eachLimited(nodes, concurrency, async (node) => {
      const ticket = tickets[Math.floor(node.index / perTicket)] as ReturnType<typeof decodeTicket>;
      const request = createCertificateRequest(node.keys.privateKey, node.keys.publicKey, 'portal-node');
      const channel = await ServiceChannel.open<ControllerOperations>(node.target);
      try {
        const answer = await channel.request('enroll', { ticket: ticket.ticketId, secret: ticket.secret, request });
        node.certificate = answer.certificate;
        node.nodeId = answer.identity.nodeId;
      } finally {
        channel.close();
      }
    });
    const enrollSeconds = (performance.now() - enrollStart) / 1000;
    const cpuPerEnrollmentMs = (cpu() - enrollCpu) / options.nodes;

    // Memory per idle node: the growth from holding half the fleet to holding all of it, each measured
    // after 10 s idle, so that what enrolling left behind (garbage not yet collected) is in both.
    const connect = (group: readonly SimulatedNode[]) =>
      eachLimited(group, concurrency, async (node) => {
        const channel = new StandingChannel<ControllerOperations>({
          target: node.target,
          credentials: () => ({ key: node.keys.privateKey, certificate: node.certificate as string }),
          logger: quiet,
        });
        node.channel = channel;
        const up = new Promise((resolve) => channel.once('up', resolve));
        channel.on('down', () => (node.lost += 1));
        channel.on('event', (event: { event: string }) => {
          if (!node.heard.has(event.event)) node.heard.set(event.event, performance.now());
        });
        channel.start();
        await up;
      });
    const half = Math.floor(options.nodes / 2);
    log(`connecting ${half} standing connections, then holding them idle for 10 s`);
    await connect(nodes.slice(0, half));
    await wait(10_000);
    const before = pids.map(residentBytes);
    log(`connecting the other ${options.nodes - half}, then holding all idle for 10 s`);
    await connect(nodes.slice(half));
    await wait(10_000);
    const after = pids.map(residentBytes);
    const added = (index: number) => nodes.slice(half).filter((node) => node.index % count === index).length;
    const idleBytesPerNode = after.map((bytes, index) => Math.round((bytes - (before[index] ?? 0)) / added(index)));

    log(`renewing all ${options.nodes} at once`);
    const requests = nodes.map((node) =>
      createCertificateRequest(node.keys.privateKey, node.keys.publicKey, 'portal-node'),
    );
    const renewCpu = cpu();
    const renewStart = performance.now();
    let renewalsRetried = 0;
    await eachLimited(nodes, concurrency * 4, async (node) => {
      const channel = node.channel as StandingChannel<ControllerOperations>;
      // As a node does: a renewal that finds its connection down waits until the node has made it again.
      for (let attempt = 1; ; attempt++) {
        try {
          const answer = await channel.request('renew', { request: requests[node.index] as string });
          node.certificate = answer.certificate;
          return;
        } catch (error) {
          if (attempt >= 5) throw error;
          renewalsRetried += 1;
          if (!channel.connected) await Promise.race([once(channel, 'up'), wait(15_000)]);
        }
      }
    });
    const renewSeconds = (performance.now() - renewStart) / 1000;
    const cpuPerRenewalMs = (cpu() - renewCpu) / options.nodes;

    log('revoking one node: how long until every node has heard');
    for (const node of nodes) node.heard.clear();
    const victim = nodes.at(-1) as SimulatedNode;
    const revokedAt = performance.now();
    await adminRequest(adminHome, 'revoke', { member: victim.nodeId as string, reason: 'fleet' });
    const listeners = nodes.slice(0, -1);
    await until(() => listeners.every((node) => node.heard.has('revoked')), 30_000);
    const revocation = reach(listeners, 'revoked', revokedAt);

    log('starting a relay: how long until every node has heard');
    for (const node of nodes) node.heard.clear();
    const relayTicket = await ticketInProcess(adminHome, ['--relay-node']);
    relay = start(globalThis.process.execPath, [portalBundle, 'relay', 'start', '--listen', '127.0.0.1:0'], {
      env: { PORTAL_HOME: join(dir, 'relay'), ENROLLMENT_TICKET: relayTicket },
    });
    await relay.waitFor(/Portal relay \S+ of project/, 60_000);
    const relayAt = performance.now();
    await until(() => listeners.every((node) => node.heard.has('relays')), 30_000);
    const relayAnnounced = reach(listeners, 'relays', relayAt);

    return {
      nodes: options.nodes,
      replicas: count,
      enrollmentsPerSecond: Math.round(options.nodes / enrollSeconds),
      renewalsPerSecond: Math.round(options.nodes / renewSeconds),
      cpuPerRenewalMs: Number(cpuPerRenewalMs.toFixed(2)),
      cpuPerEnrollmentMs: Number(cpuPerEnrollmentMs.toFixed(2)),
      idleBytesPerNode,
      revocation,
      relayAnnounced,
      connectionsLost: nodes.reduce((sum, node) => sum + node.lost, 0),
      renewalsRetried,
    };
  } finally {
    for (const node of nodes) node.channel?.stop();
    await relay?.stop();
    await controllers?.stop();
    await postgres?.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

async function until(done: () => boolean, limitMs: number): Promise<void> {
  const deadline = performance.now() + limitMs;
  while (!done()) {
    if (performance.now() > deadline) return;
    await wait(20);
  }
}
