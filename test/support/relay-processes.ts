/**
 * Relays of a project as processes: `portal relay start` (a relay node of its own), started again on
 * the same port and identity as after a crash, and the rogue relay of test/support/rogue-relay.ts.
 */
import { join } from 'node:path';
import { helperProgram } from './helper-program.ts';
import { portalBundle, start, type Running } from './processes.ts';
import type { ProjectProcesses } from './project-processes.ts';

export interface RelayProcess {
  readonly process: Running;
  /** The relay's node id, as nodes show it. */
  readonly id: string;
  /** host:port it listens on. */
  readonly listening: string;
  /** The SHA-256 of its TLS certificate, which nodes pin. */
  readonly fingerprint: string;
  /** Its PORTAL_HOME: its identity, to start it again without a ticket. */
  readonly home: string;
  readonly rogue: boolean;
  /** The address it announces, when not its listening address. */
  readonly publicAddress?: string;
}

/** The line a relay prints once it listens. */
const listeningLine =
  /Portal relay (\S+) of project \S+ listening on (\S+), reached as \S+ \(certificate fingerprint ([0-9a-f]{64})\)/;

async function relayStarted(
  process: Running,
  home: string,
  rogue: boolean,
  publicAddress?: string,
): Promise<RelayProcess> {
  const line = await process.waitFor(listeningLine);
  const [, id = '', listening = '', fingerprint = ''] = listeningLine.exec(line) ?? [];
  return { process, id, listening, fingerprint, home, rogue, ...(publicAddress ? { publicAddress } : {}) };
}

export interface RelayStartOptions {
  /** host:port to listen on. @default 127.0.0.1:0 */
  readonly listen?: string;
  /** host:port announced to nodes (taken only with a listening port other than 0). @default the listening address */
  readonly publicAddress?: string;
  readonly env?: NodeJS.ProcessEnv;
}

/** Enrolls a relay named `name` in the project (a `--relay-node` ticket) and runs `portal relay start`. */
export async function startRelay(
  project: ProjectProcesses,
  name: string,
  options: RelayStartOptions = {},
): Promise<RelayProcess> {
  const ticket = await project.ticket(['--relay-node']);
  const home = join(project.dir, name);
  const flags = [
    '--listen',
    options.listen ?? '127.0.0.1:0',
    ...(options.publicAddress ? ['--public-address', options.publicAddress] : []),
  ];
  const process = start(globalThis.process.execPath, [portalBundle, 'relay', 'start', ...flags], {
    env: { PORTAL_HOME: home, ENROLLMENT_TICKET: ticket, ...options.env },
  });
  return relayStarted(process, home, false, options.publicAddress);
}

/**
 * The same relay again (its identity, its port), as after a crash or a restart: no ticket, so this
 * works with the controller away. The earlier process must have exited.
 */
export async function restartRelay(relay: RelayProcess, env: NodeJS.ProcessEnv = {}): Promise<RelayProcess> {
  if (relay.rogue) return relayStarted(rogueProcess(relay.home, undefined, relay.listening, env), relay.home, true);
  const flags = [
    '--listen',
    relay.listening,
    ...(relay.publicAddress ? ['--public-address', relay.publicAddress] : []),
  ];
  const process = start(globalThis.process.execPath, [portalBundle, 'relay', 'start', ...flags], {
    env: { PORTAL_HOME: relay.home, ...env },
  });
  return relayStarted(process, relay.home, false, relay.publicAddress);
}

function rogueProcess(home: string, ticket: string | undefined, listen: string, env: NodeJS.ProcessEnv): Running {
  return start(globalThis.process.execPath, [helperProgram('test/support/rogue-relay.ts')], {
    env: { PORTAL_HOME: home, ROGUE_LISTEN: listen, ...(ticket ? { ENROLLMENT_TICKET: ticket } : {}), ...env },
  });
}

/** Enrolls a relay named `name` that accepts splices and carries nothing (test/support/rogue-relay.ts). */
export async function startRogueRelay(
  project: ProjectProcesses,
  name: string,
  env: NodeJS.ProcessEnv = {},
): Promise<RelayProcess> {
  const ticket = await project.ticket(['--relay-node']);
  const home = join(project.dir, name);
  return relayStarted(rogueProcess(home, ticket, '127.0.0.1:0', env), home, true);
}

/** Splices the rogue relay has accepted and held so far. */
export function splicesHeld(relay: RelayProcess): number {
  return relay.process.lines.filter((line) => line.includes('rogue relay: holding splice')).length;
}
