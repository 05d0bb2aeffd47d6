/**
 * `npm run soak`: a bounded load test on loopback. A project of separate processes (a controller, a
 * relay of its own, and three portals) carries real clients while the attacks of the hardening reviews
 * run against it one after another; then it rests. Prints the resident memory and descriptors of every
 * Portal process before, during and after, the real clients' errors and p99 latency during each
 * attack, and each attack's own figures.
 *
 * The portals: `app` (the attacks' target; its clients ride the direct path, as by default), `other`
 * (another relay name, outlet and inlet, on the direct path: its clients must see no error during any
 * attack), and `bulk` (relays only, direct path off: the portal the data-plane attacks cut, stall or
 * starve of relays). The controller runs no relay (--no-relay), so that the project's relays are the
 * relay processes and a rogue one can be listed first; the attacks on relays hit the standalone relay,
 * which is reached through a gate in this process (test/support/gate-proxy.ts) so that one attack can
 * have the bulk inlet link it a moment after the rogue.
 *
 * Exits 1 when a target is missed: a process died, a client of `app` or `other` saw an error during an
 * attack, a process is not back within 10 % of its baseline memory, the flooding member held more
 * target connections than its bound, a member flooding audit reports wrote more than its budget, the
 * bulk inlet took 5 s or more to a session past the rogue relay, a relay restarted behind 20
 * unreachable ones was not linked again, or a client of a relay killed mid-transfer saw an end of
 * stream with bytes missing.
 *
 * The member-side attacks (a member that runs its own code with its own key) have targets of their own:
 * a member that withholds its verdict until it is revoked has no stream accepted and its session closed
 * within 1 s of `portal project revoke` returning; a session made with a certificate that expires has
 * no stream accepted from its notAfter and is closed by notAfter + 1 s; a member flooding audit reports
 * for 20 s grows the controller's store by at most auditFloodStoreBound, while another member's report
 * lands and the administrator's `members` is answered within 1 s; and while a local process holds the
 * outlet's status server, every health probe answers within 2 s, and `portal node show` within 2 s past
 * its time before the hold (see scripts/soak-member-attacks.ts).
 *
 * SOAK_REST_SECONDS (default 60) sets the rest before the last measurement. SOAK_ONLY=key,key runs only
 * those attacks (keys: attackKeys in scripts/soak-selection.ts; unreachable-relays and relay-killed
 * need rogue-relay, which starts the bulk inlet); by default every attack runs.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  connectFlood,
  memberStreamFlood,
  pingFlood,
  rogueOutlet,
  slowloris,
  type Attackers,
} from '../test/support/attack-scenarios.ts';
import { realClients, usageOf, watchUsage } from '../test/support/attackers.ts';
import { timeUntilWorking } from '../test/support/echo-portal.ts';
import { startGateProxy } from '../test/support/gate-proxy.ts';
import { statusFromStart } from '../test/support/node-checks.ts';
import { freePort, inletPort, start, statusWhen, type Running } from '../test/support/processes.ts';
import { startProject } from '../test/support/project-processes.ts';
import {
  restartRelay,
  splicesHeld,
  startRelay,
  startRogueRelay,
  type RelayProcess,
} from '../test/support/relay-processes.ts';
import { startEchoServer } from '../test/support/tcp.ts';
import { projectRoot } from '../test/support/usecases.ts';
import { auditFloodRow, expiredCertificateRow, statusHoldRow, withheldVerdictRow } from './soak-member-attacks.ts';
import { relayKilledRow, unreachableRelaysRow, type RelayAttackScene } from './soak-relay-attacks.ts';
import { soakReport, type AttackRow } from './soak-report.ts';
import { selectAttacks, type AttackKey } from './soak-selection.ts';

const restSeconds = Number(process.env.SOAK_REST_SECONDS ?? 60);
const ready = /Portal node setup completed successfully/;
const MiB = 1024 * 1024;
/** What an outlet holds for one inlet node at most (src/node/connection-bounds.ts). */
const perInletBound = 512;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function main(selected: ReadonlySet<AttackKey>): Promise<number> {
  const step = (text: string) => process.stdout.write(`soak: ${text}\n`);
  step('starting a controller without a relay, a relay, and the portals app, other and bulk (separate processes)');
  const echo = await startEchoServer();
  const project = await startProject({ controllerFlags: ['--no-relay'] });
  const homes = await mkdtemp(join(tmpdir(), 'portal-soak-attackers-'));
  const gate = await startGateProxy();
  const extraRelays: RelayProcess[] = [];
  let relay: RelayProcess | undefined;
  let store: Running | undefined;
  try {
    // The bulk portal's target, in a process of its own: answers of 32 MiB must not starve the event
    // loop of this one, where the real clients of app and other run. Requests of 1 MiB or more are
    // answered 20 at a time (D6), smaller ones at once.
    store = start(process.execPath, [
      '--import',
      'tsx',
      join(projectRoot, 'test/support/store-echo-server.ts'),
      '20',
      String(MiB),
    ]);
    const storePort = Number(/listening on (\d+)/.exec(await store.waitFor(/store echo listening on \d+/))?.[1]);
    const relayPort = await freePort();
    gate.target = { host: '127.0.0.1', port: relayPort };
    relay = await startRelay(project, 'relay', {
      listen: `127.0.0.1:${relayPort}`,
      publicAddress: `127.0.0.1:${gate.port}`,
    });
    const node = async (name: string, config: object, flags: string[], env: NodeJS.ProcessEnv = {}) =>
      project.startNode(name, { 'http-server-port': 0, ...config }, await project.ticket(flags), env);
    const outlet = await node(
      'outlet',
      { relay: 'app', 'tcp-outlet': { to: `127.0.0.1:${echo.port}`, allow: 'app-inlet' } },
      ['--attribute', 'app-outlet', '--relay', 'app'],
    );
    const inlet = await node('inlet', { 'tcp-inlet': { from: '127.0.0.1:0', via: 'app', allow: 'app-outlet' } }, [
      '--attribute',
      'app-inlet',
    ]);
    const otherOutlet = await node(
      'other-outlet',
      { relay: 'other', 'tcp-outlet': { to: `127.0.0.1:${echo.port}`, allow: 'other-inlet' } },
      ['--attribute', 'other-outlet', '--relay', 'other'],
    );
    const otherInlet = await node(
      'other-inlet',
      { 'tcp-inlet': { from: '127.0.0.1:0', via: 'other', allow: 'other-outlet' } },
      ['--attribute', 'other-inlet'],
    );
    // The default heartbeat (5 s) on the bulk portal: at 500 ms, pings that wait behind 640 MiB of
    // uploads on a starved machine miss their 1 s and end the session before the attack's cut.
    const bulkOutlet = await node(
      'bulk-outlet',
      { relay: 'bulk', 'tcp-outlet': { to: `127.0.0.1:${storePort}`, allow: 'bulk-inlet' } },
      ['--attribute', 'bulk-outlet', '--relay', 'bulk'],
    );
    const bulkTicket = await project.ticket(['--attribute', 'bulk-inlet']);
    await Promise.all([outlet, inlet, otherOutlet, otherInlet, bulkOutlet].map((started) => started.waitFor(ready)));
    const home = (name: string) => join(project.dir, name);
    const port = await inletPort(home('inlet'));
    const otherPort = await inletPort(home('other-inlet'));
    await Promise.all(
      ['inlet', 'other-inlet'].map((name) => statusWhen(home(name), (shown) => shown.inlets[0]?.path === 'direct')),
    );

    const currentRelay = () => relay as RelayProcess;
    // By name: a pid read at each use, since the relay is restarted by the data-plane attacks.
    const pids: Record<string, () => number> = {
      controller: () => project.controller.process.child.pid as number,
      relay: () => currentRelay().process.child.pid as number,
      outlet: () => outlet.child.pid as number,
      inlet: () => inlet.child.pid as number,
      'other outlet': () => otherOutlet.child.pid as number,
      'other inlet': () => otherInlet.child.pid as number,
    };
    // Memory must come back for the processes that live through the whole soak.
    const lasting = ['controller', 'outlet', 'inlet', 'other outlet', 'other inlet'];
    const usageOfLasting = async () =>
      Object.fromEntries(
        await Promise.all(lasting.map(async (name) => [name, await usageOf((pids[name] as () => number)())] as const)),
      );
    const attackers: Attackers = {
      project,
      homes,
      relay: 'app',
      inletAttribute: 'app-inlet',
      outletAttribute: 'app-outlet',
      relayTarget: { address: `127.0.0.1:${gate.port}`, fingerprint: relay.fingerprint },
    };

    step('warming up with real clients (5 s)');
    await realClients(port, 5).stop();
    const warm = realClients(port, 5);
    const otherWarm = realClients(otherPort, 5);
    await pause(5000);
    const quiet = await warm.stop();
    const otherQuiet = await otherWarm.stop();
    const before = await usageOfLasting();

    const rows: AttackRow[] = [];
    const failures: string[] = [];
    const attack = async (key: AttackKey, name: string, run: () => Promise<string>) => {
      if (!selected.has(key)) return;
      step(`attack ${name} (${key})`);
      const watchers = Object.fromEntries(Object.entries(pids).map(([process, pid]) => [process, watchUsage(pid())]));
      const clients = realClients(port, 10);
      const other = realClients(otherPort, 10);
      const detail = await run();
      const [load, otherLoad] = await Promise.all([clients.stop(), other.stop()]);
      const peaks = Object.fromEntries(
        await Promise.all(
          Object.entries(watchers).map(async ([process, watcher]) => [process, await watcher.stop()] as const),
        ),
      );
      rows.push({ name, clients: load, other: otherLoad, peaks, detail });
    };

    await attack('ping-flood', '1 ping flood without reading', async () => {
      const flood = await pingFlood(attackers, 10_000);
      return `anonymous ${flood.anonymous.connections} connections; admin answered in ${flood.adminLatencyMs} ms`;
    });
    await attack('connect-flood', '4 connect flood, no rights', async () => {
      const flood = await connectFlood(attackers, 'stranger', 'stranger', 30_000);
      return `${JSON.stringify(flood.codes)} in ${flood.seconds} s`;
    });
    await attack('splice-hoarding', '4 splice hoarding, allowed', async () => {
      const flood = await connectFlood(attackers, 'hoarder', 'app-inlet', 2000);
      await pause(12_000);
      return `${JSON.stringify(flood.codes)}`;
    });
    await attack('slowloris', '5 slowloris', async () => {
      const slow = await slowloris(attackers, 15_000);
      return (
        `${slow.oneSourceClosedAtOnce} of 300 closed at once, ${slow.evicted} evicted, ` +
        `${slow.closedInAll}/${slow.total} closed by ${slow.allClosedSeconds} s; ` +
        `admin answered in ${slow.adminLatencyMs} ms`
      );
    });
    await attack('rogue-registrations', '6 rogue registrations', async () => {
      const rogue = await rogueOutlet(attackers, 'rogue');
      await pause(10_000);
      rogue.stop();
      return `rogue dialled ${rogue.dials} times`;
    });

    await attack('stream-flood', 'D1 stream flood, allowed', async () => {
      // 1,000 opens at a time, each batch once the last is answered: all at once, the outlet closes the
      // session after 4,096 answers in one turn (muxLimits.unreadAnswers) and the flood ends early.
      const flood = await memberStreamFlood(attackers, 'flooder', 20_000, 1000);
      const burst = await memberStreamFlood(attackers, 'burster', 20_000);
      if (flood.accepted > perInletBound)
        failures.push(`the flooding member held ${flood.accepted} target connections (bound ${perInletBound})`);
      const outcome = (result: typeof flood) =>
        `${result.accepted} accepted, ` +
        `${result.refused} refused${result.closedEarly ? ', then the outlet closed the session' : ''}`;
      return (
        `${flood.opened} opens by 1,000: ${outcome(flood)} (${flood.reasons.join('; ')}); ` +
        `${burst.opened} at once: ${outcome(burst)}`
      );
    });

    let bulkPort = 0;
    let bulkInlet: Running | undefined;
    await attack('rogue-relay', 'D2 rogue relay joins', async () => {
      const rogue = await startRogueRelay(project, 'rogue-relay');
      extraRelays.push(rogue);
      // A restart lists the healthy relay after the rogue, as any restart after the rogue joined would.
      await currentRelay().process.stop();
      relay = await restartRelay(currentRelay());
      await statusWhen(
        home('bulk-outlet'),
        (shown) => [currentRelay().id, rogue.id].every((id) => shown.outlets[0]?.registered_on.includes(id)),
        20_000,
      );
      // The bulk inlet starts now, and links the healthy relay a moment after the rogue (at most 3 s).
      gate.hold();
      const started = Date.now();
      bulkInlet = await project.startNode(
        'bulk-inlet',
        {
          'http-server-port': 0,
          'tcp-inlet': { from: '127.0.0.1:0', via: 'bulk', allow: 'bulk-outlet', direct: false },
        },
        bulkTicket,
      );
      await rogue.process.waitFor(/rogue relay: holding splice/, 3000).catch(() => undefined);
      gate.release();
      const open = await statusFromStart(home('bulk-inlet'), (shown) => shown.inlets[0]?.session === 'open', 60_000);
      const sessionMs = Date.now() - started;
      bulkPort = await inletPort(home('bulk-inlet'));
      const workingMs = sessionMs + (await timeUntilWorking(bulkPort, 30_000, 20));
      const bulkClients = realClients(bulkPort, 20);
      await pause(10_000);
      const bulkLoad = await bulkClients.stop();
      await rogue.process.stop();
      if (sessionMs >= 5000)
        failures.push(
          `the bulk inlet had a session ${sessionMs} ms after it started past the rogue relay (target 5 s)`,
        );
      if (bulkLoad.errors > 0)
        failures.push(`bulk clients saw ${bulkLoad.errors} errors once the inlet had a session (rogue relay up)`);
      const slow = bulkInlet.lines.find((line) => line.includes('gave no session within'));
      return (
        'relays listed by the bulk inlet: ' +
        `${open.relays[0]?.id === rogue.id ? 'the rogue first' : 'the rogue NOT first'}; ` +
        `the rogue held ${splicesHeld(rogue)} splices; ` +
        `session ${open.inlets[0]?.path} after ${sessionMs} ms, clients working after ${workingMs} ms; ` +
        `then ${bulkLoad.attempts} bulk clients, ${bulkLoad.errors} errors` +
        (slow ? `; inlet: "${slow.replace(/^\S+ \S+ /, '')}"` : '')
      );
    });

    const relayScene = (): RelayAttackScene => ({
      attackers,
      bulk: {
        port: bulkPort,
        inlet: bulkInlet,
        outlet: bulkOutlet,
        inletHome: home('bulk-inlet'),
        outletHome: home('bulk-outlet'),
      },
      relays: { current: currentRelay, replace: (next) => (relay = next) },
      failures,
    });
    await attack('unreachable-relays', 'D3 20 unreachable relays', () => unreachableRelaysRow(relayScene()));
    await attack('relay-killed', 'D6 relay killed mid-transfer', () => relayKilledRow(relayScene()));

    await attack('withheld-verdict', 'O1 withheld verdict, revoked', () => withheldVerdictRow(attackers, failures));
    await attack('expired-certificate', 'O2 expired-certificate session', () =>
      expiredCertificateRow(attackers, failures),
    );
    await attack('audit-flood', 'O3 audit flood, no allow', () => auditFloodRow(attackers, failures));
    await attack('status-hold', 'O10 status server held', () => statusHoldRow(home('outlet'), failures));

    step(`resting ${restSeconds} s`);
    await pause(restSeconds * 1000);
    const after = await usageOfLasting();
    const children: Record<string, Running['child']> = {
      controller: project.controller.process.child,
      outlet: outlet.child,
      inlet: inlet.child,
      'other outlet': otherOutlet.child,
      'other inlet': otherInlet.child,
    };
    const alive = Object.fromEntries(
      Object.entries(children).map(([name, child]) => [name, child.exitCode === null && child.signalCode === null]),
    );

    const report = soakReport({
      rows,
      quiet,
      otherQuiet,
      names: Object.keys(pids),
      lasting,
      before,
      after,
      alive,
      restSeconds,
    });
    for (const line of report.lines) console.log(line);
    failures.push(...report.failures);
    console.log('');
    console.log(failures.length === 0 ? 'soak: every target met' : `soak: targets missed: ${failures.join('; ')}`);
    return failures.length === 0 ? 0 : 1;
  } finally {
    gate.release();
    for (const extra of extraRelays) await extra.process.stop();
    await relay?.process.stop();
    await project.close();
    await gate.close();
    await echo.close();
    await store?.stop();
    await rm(homes, { recursive: true, force: true });
  }
}

const selected = selectAttacks(process.env.SOAK_ONLY);
if (typeof selected === 'string') {
  console.error(`soak: ${selected}`);
  process.exit(2);
}
main(selected).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`soak: ${(error as Error).message}`);
    process.exit(1);
  },
);
