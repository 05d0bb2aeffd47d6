/** One benchmark run: starts every helper, runs the phases, prints the table; cleanup() undoes it all. */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  cpuPhase,
  idlePhase,
  latencyPhase,
  pgbenchPhase,
  throughputPhase,
  type Endpoint,
  type Target,
} from './phases.ts';
import {
  compiledConfigs,
  inletFacts,
  plainConfigs,
  portalPaths,
  startPortal,
  startProject,
  type PortalPath,
} from './portal.ts';
import { checkPrerequisites } from './prerequisites.ts';
import { postgresDirectory, startPostgres } from './postgres.ts';
import { freePort, listening, start, stopStarted } from './processes.ts';
import { openFilesLimit } from './proc-stats.ts';
import { summary, table, type Figures } from './report.ts';
import { floorCertificate, floorRoles, startFloor } from './floor.ts';
import { settings, type PhaseName } from './settings.ts';
import { startSshTunnel } from './ssh-tunnel.ts';

const scratch: string[] = [];

/**
 * Whether this machine lets every process hold the idle connections (clients here, one end each in
 * the tunnel processes and the echo server), with room for the rest; a message when it does not.
 */
function idleLimitProblem(openFiles: number): string | undefined {
  const limit = openFilesLimit();
  if (limit.soft >= openFiles) return undefined;
  return (
    `${settings.idleConnections} idle connections need ${openFiles} open files per process, ` +
    `but this process may open ${limit.soft} (hard limit ${limit.hard}): ` +
    `raise the limit before npm run bench (ulimit -n ${openFiles}) or set BENCH_IDLE_CONNECTIONS lower; ` +
    'the idle-connection figures are left out'
  );
}

export async function main(): Promise<void> {
  checkPrerequisites();
  const work = mkdtempSync(join(tmpdir(), 'portal-bench-'));
  scratch.push(work);
  const { paths, note } = portalPaths();
  const openFiles = settings.idleConnections + 1024;
  const idleProblem = idleLimitProblem(openFiles);
  console.log(
    `Portal benchmark: pgbench ${settings.pgbenchSeconds} s per run (scale ${settings.pgbenchScale}, ` +
      `best of ${settings.pgbenchRounds} alternating rounds, synchronous_commit off), ` +
      `iperf3 ${settings.repeats} × ${settings.seconds} s (median), ${settings.roundTrips} round trips of 64 bytes ` +
      `and ${settings.newConnections} new connections × ${settings.repeats} (median p50), ` +
      `CPU over ${(settings.cpuBytes / 1024 ** 3).toFixed(2)} GiB, ${settings.idleConnections} idle connections for ` +
      `${settings.idleSeconds} s; Portal paths: ${paths.map((path) => path.name).join(', ')}`,
  );
  const nodeVersion = execFileSync(settings.nodeBinary, ['--version'], { encoding: 'utf8' }).trim();
  console.log(`Portal nodes and the relay on Node.js ${nodeVersion}; the controller on ${process.version}`);
  if (note) console.log(note);
  if (idleProblem) console.log(idleProblem);
  console.log('');

  const log = (text: string) => process.stdout.write(`  ${text}\n`);
  log('starting iperf3, an echo server and PostgreSQL…');
  const iperfPort = await freePort();
  await start('iperf3', ['-s', '-B', '127.0.0.1', '-p', String(iperfPort)]);
  await listening(iperfPort);
  const echoPort = Number(
    (
      await start(process.execPath, ['--import', 'tsx', join(settings.root, 'scripts/bench/echo-server.ts')], {
        ready: /^echo listening \d+/,
        openFiles,
      })
    ).line.split(' ')[2],
  );
  const pgDirectory = postgresDirectory();
  scratch.push(pgDirectory);
  const postgres = await startPostgres(pgDirectory);

  log('starting sshd and ssh -L…');
  const ssh = await startSshTunnel(work, [iperfPort, echoPort, postgres.port], openFiles);
  const sshRoles = { inlet: () => [ssh.sshPid], outlet: () => ssh.sshdPids() };
  const sshEndpoint = (index: number): Endpoint => ({ port: ssh.ports[index] as number, roles: sshRoles });

  log('starting a controller, a relay node and the portals…');
  const project = await startProject(work, openFiles);
  const relay = project.relayPids;
  const targets: Target[] = [
    {
      column: 'none',
      label: 'direct (no tunnel)',
      iperf: { port: iperfPort, roles: {} },
      echo: { port: echoPort, roles: {} },
      postgres: { port: postgres.port, roles: {} },
    },
    {
      column: 'ssh',
      label: 'ssh -L (aes128-gcm)',
      iperf: sshEndpoint(0),
      echo: sshEndpoint(1),
      postgres: sshEndpoint(2),
    },
  ];
  const measured: PortalPath[] = [];
  const notes = note ? [note] : [];
  const inlets: { label: string; path: PortalPath['name']; home: string }[] = [];
  for (const path of paths) {
    const label =
      path.name === 'relayed' ? 'portal relayed (inlet → relay → outlet)' : 'portal direct (outlet dials inlet)';
    const endpoint = async (name: string, port: number, base = plainConfigs): Promise<Endpoint> => {
      const running = await startPortal(work, project, { name, port }, path, base, openFiles);
      inlets.push({ label: `${label}, ${name}`, path: path.name, home: running.inletHome });
      return {
        port: running.port,
        roles: { inlet: () => [running.inletPid], outlet: () => [running.outletPid], relay },
      };
    };
    try {
      targets.push({
        column: path.name,
        label,
        iperf: await endpoint('iperf', iperfPort),
        echo: await endpoint('echo', echoPort),
        postgres: await endpoint('postgres', postgres.port, compiledConfigs('postgres')),
      });
      measured.push(path);
    } catch (error) {
      notes.push(`the ${path.name} path is left out: ${(error as Error).message.split('\n')[0]}`);
      console.log(notes.at(-1));
    }
  }

  const floors: Target[] = [];
  if (settings.floors) {
    log('starting the runtime floor: chains of bare Node.js TCP proxies…');
    for (const path of measured) {
      const label = `Node.js floor for ${path.name} (${floorRoles[path.name].length} bare proxies)`;
      floors.push({
        column: { floor: path.name },
        label,
        iperf: await startFloor(iperfPort, path.name, openFiles),
        echo: await startFloor(echoPort, path.name, openFiles),
        postgres: await startFloor(postgres.port, path.name, openFiles),
      });
    }
  }
  if (settings.tlsFloors) {
    log('starting the TLS floor: the same chains with Node.js TLS from the first proxy to the last…');
    const tls = { certificateFile: floorCertificate(work) };
    for (const path of measured) {
      const label = `Node.js TLS floor for ${path.name} (${floorRoles[path.name].length} bare proxies)`;
      floors.push({
        column: { tlsFloor: path.name },
        label,
        iperf: await startFloor(iperfPort, path.name, openFiles, tls),
        echo: await startFloor(echoPort, path.name, openFiles, tls),
        postgres: await startFloor(postgres.port, path.name, openFiles, tls),
      });
    }
  }
  const measuredTargets = [...targets, ...floors];

  const figures: Figures = {};
  const runs = (phase: PhaseName) => settings.phases.has(phase);
  if (runs('throughput')) await throughputPhase(measuredTargets, figures);
  if (runs('latency')) await latencyPhase(measuredTargets, figures);
  if (runs('cpu')) await cpuPhase(measuredTargets, figures);
  if (runs('pgbench')) await pgbenchPhase(measuredTargets, figures);
  const idleProblems = !runs('idle') ? [] : idleProblem ? [idleProblem] : await idlePhase(targets, figures);

  notes.push(...(await pathCheck(inlets)), ...idleProblems.map((problem) => `idle connections: ${problem}`));
  console.log('');
  const names = measured.map((path) => path.name);
  console.log(
    'Each Portal path beside its runtime floor (bare Node.js TCP proxies, no TLS, no Portal code, as many ' +
      'processes as the path has) and its TLS floor (the same with Node.js TLS 1.3 from the first proxy to ' +
      'the last), judged against the floor of this run:',
  );
  for (const line of table(figures, names)) console.log(line);
  console.log('');
  for (const line of summary(figures, names)) console.log(line);
  if (notes.length > 0) console.log('');
  for (const line of notes) console.log(line);
}

/**
 * Which path each Portal inlet's connections took, from its /show counters: a warning for every
 * connection that took another path than the one its figures are reported under.
 */
async function pathCheck(
  inlets: readonly { label: string; path: PortalPath['name']; home: string }[],
): Promise<string[]> {
  const warnings: string[] = [];
  for (const inlet of inlets) {
    const facts = await inletFacts(inlet.home);
    if (facts?.connections_direct === undefined || facts.connections_relayed === undefined) continue;
    const astray = inlet.path === 'direct' ? facts.connections_relayed : facts.connections_direct;
    process.stdout.write(
      `  ${inlet.label}: ${facts.connections_direct} connections direct, ${facts.connections_relayed} relayed\n`,
    );
    if (astray > 0)
      warnings.push(`WARNING: ${inlet.label}: ${astray} connections took the other path; its figures mix both`);
  }
  return warnings;
}

let cleaning: Promise<void> | undefined;

/** Stops everything this run started and removes its directories; safe to call twice. */
export function cleanup(): Promise<void> {
  cleaning ??= (async () => {
    await stopStarted();
    for (const directory of scratch) rmSync(directory, { recursive: true, force: true });
  })();
  return cleaning;
}
