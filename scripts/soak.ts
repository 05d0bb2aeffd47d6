/**
 * `npm run soak`: a bounded load test on loopback. A real portal (controller with its relay, outlet,
 * inlet, each its own process) carries real clients while the attacks of the hardening review run
 * against it one after another; then it rests a minute. Prints the resident memory and descriptors
 * of every Portal process before, during and after, and the real clients' errors and p99 latency
 * during each attack. Exits 1 when a target is missed: a process died, a real client saw an error
 * during attacks 1, 4, 5 or 6, or a process is not back within 10 % of its baseline memory.
 *
 * SOAK_REST_SECONDS (default 60) sets the rest before the last measurement.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectFlood, pingFlood, rogueOutlet, slowloris, type Attackers } from '../test/support/attack-scenarios.ts';
import { realClients, usageOf, watchUsage, type ClientLoad, type Usage } from '../test/support/attackers.ts';
import { inletPort } from '../test/support/processes.ts';
import { startProject } from '../test/support/project-processes.ts';
import { startEchoServer } from '../test/support/tcp.ts';

const restSeconds = Number(process.env.SOAK_REST_SECONDS ?? 60);
const ready = /Portal node setup completed successfully/;

interface AttackRow {
  readonly name: string;
  readonly clients: ClientLoad;
  readonly peaks: Record<string, Usage>;
  readonly detail: string;
}

async function main(): Promise<number> {
  const step = (text: string) => process.stdout.write(`soak: ${text}\n`);
  step('starting a controller, an outlet and an inlet (separate processes)');
  const echo = await startEchoServer();
  const project = await startProject();
  const homes = await mkdtemp(join(tmpdir(), 'portal-soak-attackers-'));
  try {
    const outlet = await project.startNode('outlet', { 'http-server-port': 0, relay: 'app', 'tcp-outlet': { to: `127.0.0.1:${echo.port}`, allow: 'app-inlet' } }, await project.ticket(['--attribute', 'app-outlet', '--relay', 'app']));
    const inlet = await project.startNode('inlet', { 'http-server-port': 0, 'tcp-inlet': { from: '127.0.0.1:0', via: 'app', allow: 'app-outlet' } }, await project.ticket(['--attribute', 'app-inlet']));
    await Promise.all([outlet.waitFor(ready), inlet.waitFor(ready)]);
    const port = await inletPort(join(project.dir, 'inlet'));
    const processes: Record<string, number> = {
      controller: project.controller.process.child.pid as number,
      outlet: outlet.child.pid as number,
      inlet: inlet.child.pid as number,
    };
    const usageOfAll = async () => Object.fromEntries(await Promise.all(Object.entries(processes).map(async ([name, pid]) => [name, await usageOf(pid)] as const)));
    const attackers: Attackers = { project, homes, relay: 'app', inletAttribute: 'app-inlet', outletAttribute: 'app-outlet' };

    step('warming up with real clients (5 s)');
    await realClients(port, 5).stop();
    const warm = realClients(port, 5);
    await new Promise((resolve) => setTimeout(resolve, 5000));
    const quiet = await warm.stop();
    const before = await usageOfAll();

    const rows: AttackRow[] = [];
    const attack = async (name: string, run: () => Promise<string>) => {
      step(`attack ${name}`);
      const watchers = Object.fromEntries(Object.entries(processes).map(([process, pid]) => [process, watchUsage(pid)]));
      const clients = realClients(port, 10);
      const detail = await run();
      const load = await clients.stop();
      const peaks = Object.fromEntries(await Promise.all(Object.entries(watchers).map(async ([process, watcher]) => [process, await watcher.stop()] as const)));
      rows.push({ name, clients: load, peaks, detail });
    };
    await attack('1 ping flood without reading', async () => {
      const flood = await pingFlood(attackers, 10_000);
      return `anonymous ${flood.anonymous.connections} connections; admin answered in ${flood.adminLatencyMs} ms`;
    });
    await attack('4 connect flood, no rights', async () => {
      const flood = await connectFlood(attackers, 'stranger', 'stranger', 30_000);
      return `${JSON.stringify(flood.codes)} in ${flood.seconds} s`;
    });
    await attack('4 splice hoarding, allowed', async () => {
      const flood = await connectFlood(attackers, 'hoarder', 'app-inlet', 2000);
      await new Promise((resolve) => setTimeout(resolve, 12_000));
      return `${JSON.stringify(flood.codes)}`;
    });
    await attack('5 slowloris', async () => {
      const slow = await slowloris(attackers, 15_000);
      return `${slow.oneSourceClosedAtOnce} of 300 closed at once, ${slow.evicted} evicted, ${slow.closedInAll}/${slow.total} closed by ${slow.allClosedSeconds} s; admin answered in ${slow.adminLatencyMs} ms`;
    });
    await attack('6 rogue registrations', async () => {
      const rogue = await rogueOutlet(attackers, 'rogue');
      await new Promise((resolve) => setTimeout(resolve, 10_000));
      rogue.stop();
      return `rogue dialled ${rogue.dials} times`;
    });

    step(`resting ${restSeconds} s`);
    await new Promise((resolve) => setTimeout(resolve, restSeconds * 1000));
    const after = await usageOfAll();
    const children = { controller: project.controller.process.child, outlet: outlet.child, inlet: inlet.child };
    const alive = Object.fromEntries(Object.entries(children).map(([name, child]) => [name, child.exitCode === null && child.signalCode === null]));

    console.log('');
    console.log(`real clients before the attacks: ${quiet.attempts} round trips, ${quiet.errors} errors, p99 ${quiet.p99Ms} ms`);
    console.log('');
    console.log(pad(['attack', 'clients', 'errors', 'p99 ms', ...Object.keys(processes).map((name) => `${name} peak RSS MB / fds`)], [32, 8, 7, 8, 26, 26, 26]));
    for (const row of rows) {
      const peaks = Object.keys(processes).map((name) => `${row.peaks[name]?.rssMb} / ${row.peaks[name]?.fds}`);
      console.log(pad([row.name, String(row.clients.attempts), String(row.clients.errors), String(row.clients.p99Ms), ...peaks], [32, 8, 7, 8, 26, 26, 26]));
      console.log(`    ${row.detail}`);
    }
    console.log('');
    const failures: string[] = [];
    for (const name of Object.keys(processes)) {
      const start = before[name] as Usage;
      const end = after[name] as Usage;
      const ratio = end.rssMb / start.rssMb;
      console.log(`${name.padEnd(11)} RSS ${start.rssMb} MB before, ${end.rssMb} MB ${restSeconds} s after (${((ratio - 1) * 100).toFixed(1)} %); fds ${start.fds} before, ${end.fds} after; ${alive[name] ? 'alive' : 'DIED'}`);
      if (!alive[name]) failures.push(`${name} died`);
      if (ratio > 1.1) failures.push(`${name} holds ${((ratio - 1) * 100).toFixed(1)} % more memory than before`);
    }
    for (const row of rows) if (row.clients.errors > 0) failures.push(`real clients saw ${row.clients.errors} errors during attack ${row.name}`);
    console.log('');
    console.log(failures.length === 0 ? 'soak: every target met' : `soak: targets missed: ${failures.join('; ')}`);
    return failures.length === 0 ? 0 : 1;
  } finally {
    await project.close();
    await echo.close();
    await rm(homes, { recursive: true, force: true });
  }
}

function pad(cells: string[], widths: number[]): string {
  return cells.map((cell, i) => cell.padEnd(widths[i] ?? 10)).join(' ');
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`soak: ${(error as Error).message}`);
    process.exit(1);
  },
);
