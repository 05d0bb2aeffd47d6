/**
 * The chaos scenario's world, every part a real process on loopback: PostgreSQL with a synchronous
 * standby under three controller replicas (`portal controller start --store` with both hosts, no
 * embedded relay), two relays (`portal relay start`), a pool of two outlets in front of a PostgreSQL
 * target, and one inlet that reaches them through the relays only (so that a relay's loss is the data
 * path's). Each process can be killed (SIGKILL) and started again on its address and identity; the
 * database can be failed over. Used by `npm run chaos` and its short form in the suite.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { adminCodeAt } from '../../src/cli/enroll.ts';
import { adminDirectory } from '../../src/cli/home.ts';
import { enrollAdministrator } from '../../src/node/enrollment.ts';
import { startPostgres, startStandby, type Postgres, type Standby } from './postgres.ts';
import { startControllerReplicas } from './controller-replicas.ts';
import { inletPort, nodeStatus, startPortal, type NodeShow, type Running } from './processes.ts';
import type { ProjectProcesses } from './project-processes.ts';
import { restartRelay, startRelay, type RelayProcess } from './relay-processes.ts';
import { ticketInProcess } from './ticket-in-process.ts';

/** One process the scenario kills: what it is, and how it comes back. */
export interface Victim {
  readonly name: string;
  readonly kind: 'controller' | 'relay' | 'outlet' | 'database';
  /** SIGKILL (for the database: a crash of the primary). */
  kill(): Promise<void>;
  /** Starts it again (for the database: promotes the standby) and resolves once it serves again. */
  restart(): Promise<void>;
}

export interface ChaosWorld {
  readonly dir: string;
  /** The service behind the portal: the client commits rows to it through the inlet. */
  readonly target: Postgres;
  /** Where the client connects: the inlet's port. */
  readonly inletPort: number;
  readonly adminHome: string;
  /** Each controller replica, each relay, each outlet, then the database, in the order they are killed. */
  readonly victims: readonly Victim[];
  close(): Promise<void>;
}

/**
 * Polls a node's /show until `check` holds, through its start: before it serves /show (or while its
 * last run's port is still on record) a poll fails and is taken as "not yet".
 */
async function whenShown(home: string, check: (shown: NodeShow) => boolean, limitMs: number): Promise<void> {
  const deadline = Date.now() + limitMs;
  let last: string;
  for (;;) {
    try {
      const shown = await nodeStatus(home);
      if (check(shown)) return;
      last = JSON.stringify(shown).slice(0, 2000);
    } catch (error) {
      last = (error as Error).message;
    }
    if (Date.now() > deadline) throw new Error(`${home}: not within ${limitMs} ms: ${last}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Nodes notice a silent peer quickly: the scenario measures gaps of a second or two. */
const nodeEnvironment = { PORTAL_HEARTBEAT: '500ms' };

export async function startChaosWorld(): Promise<ChaosWorld> {
  const dir = await mkdtemp(join(tmpdir(), 'portal-chaos-'));
  const running = new Set<Running>();
  const servers: Postgres[] = [];
  const relays: RelayProcess[] = [];
  const track = (process: Running) => {
    running.add(process);
    return process;
  };
  const stoppers: (() => Promise<void>)[] = [];
  const close = async () => {
    for (const process of running) await process.stop();
    for (const stop of stoppers) await stop();
    for (const server of servers.reverse()) await server.stop();
    await rm(dir, { recursive: true, force: true });
  };
  try {
    const [primary, target] = await Promise.all([startPostgres(), startPostgres()]);
    servers.push(primary, target);
    primary.createDatabase('chaos');
    const standby: Standby = await startStandby(primary);
    servers.push(standby);

    const store = `postgres://${primary.user}@127.0.0.1:${primary.port},127.0.0.1:${standby.port}/chaos`;
    const controllers = await startControllerReplicas({ dir, store, password: primary.password, count: 3 });
    stoppers.push(() => controllers.stop());
    const first = controllers.first;
    const adminHome = join(dir, 'admin');
    await enrollAdministrator(adminDirectory(adminHome), adminCodeAt(first.adminCode, first.listening), 'default');
    const ticket = (flags: string[]) => ticketInProcess(adminHome, flags);

    const project = { dir, ticket } as unknown as ProjectProcesses;
    for (const name of ['relay-1', 'relay-2']) {
      const relay = await startRelay(project, name, { env: nodeEnvironment });
      track(relay.process);
      relays.push(relay);
    }

    const startNode = async (name: string, config: object, nodeTicket?: string) => {
      const path = join(dir, `${name}.json`);
      await writeFile(path, JSON.stringify(config));
      return track(
        startPortal(join(dir, name), ['node', 'create', '--foreground', '--configuration', path], {
          ...nodeEnvironment,
          ...(nodeTicket ? { ENROLLMENT_TICKET: nodeTicket } : {}),
        }),
      );
    };
    const outletConfig = {
      'http-server-port': 0,
      relay: 'db',
      'tcp-outlet': { to: `127.0.0.1:${target.port}`, allow: 'db-inlet' },
    };
    const outlets = new Map<string, Running>();
    const outletTicket = await ticket(['--attribute', 'db-outlet', '--relay', 'db', '--usage-count', '2']);
    for (const name of ['outlet-1', 'outlet-2']) outlets.set(name, await startNode(name, outletConfig, outletTicket));
    const inletHome = join(dir, 'inlet');
    await startNode(
      'inlet',
      {
        'http-server-port': 0,
        'tcp-inlet': { from: '127.0.0.1:0', via: 'db', allow: 'db-outlet', direct: false },
      },
      await ticket(['--attribute', 'db-inlet']),
    );
    const bothOpen = (shown: NodeShow) => {
      const members = shown.inlets[0]?.outlets ?? [];
      return members.length === 2 && members.every((member) => member.session === 'open');
    };
    const linkedTo = (shown: NodeShow, relay: RelayProcess) =>
      shown.relays.some((r) => r.id === relay.id && r.status === 'connected');
    const poolServes = () => whenShown(inletHome, bothOpen, 30_000);
    await poolServes();
    const port = await inletPort(inletHome);

    /** Every node holds a relay connection to `relay` again. */
    const relayLinked = async (relay: RelayProcess) => {
      for (const home of [...outlets.keys(), 'inlet'].map((name) => join(dir, name))) {
        await whenShown(home, (shown) => linkedTo(shown, relay), 30_000);
      }
    };

    const victims: Victim[] = [
      ...[0, 1, 2].map((index): Victim => ({
        name: `controller ${index + 1}`,
        kind: 'controller',
        kill: () => controllers.kill(index),
        restart: () => controllers.restart(index),
      })),
      ...relays.map((relay, index): Victim => ({
        name: `relay ${index + 1}`,
        kind: 'relay',
        kill: async () => {
          await relays[index]?.process.kill();
          running.delete(relays[index]!.process);
        },
        restart: async () => {
          const lost = relays[index]!;
          await whenShown(inletHome, (shown) => !linkedTo(shown, lost), 5_000).catch(() => undefined);
          const again = await restartRelay(lost, nodeEnvironment);
          track(again.process);
          relays[index] = again;
          await relayLinked(again);
        },
      })),
      ...[...outlets.keys()].map((name): Victim => ({
        name: name.replace('-', ' '),
        kind: 'outlet',
        kill: async () => {
          await outlets.get(name)?.kill();
          running.delete(outlets.get(name)!);
        },
        restart: async () => {
          // Once the inlet has seen the loss, so that "both open" below is the outlet back, not its ghost.
          await whenShown(inletHome, (shown) => !bothOpen(shown), 5_000).catch(() => undefined);
          outlets.set(name, await startNode(name, outletConfig));
          await poolServes();
        },
      })),
      {
        name: 'database (failover)',
        kind: 'database',
        kill: () => primary.crash(),
        restart: () => {
          standby.promote();
          return Promise.resolve();
        },
      },
    ];
    return { dir, target, inletPort: port, adminHome, victims, close };
  } catch (error) {
    await close();
    throw error;
  }
}
