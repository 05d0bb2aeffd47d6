/** The benchmark's knobs, read once from the environment, and the targets it checks. */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { InputError, RuntimeFailure } from '../../src/shared/errors.ts';

const root = new URL('../..', import.meta.url).pathname;

export function count(name: string, fallback: number): number {
  const text = process.env[name];
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0)
    throw new InputError('BAD_SETTING', `${name}=${text} is not a positive number`, {
      hint: `give a value such as ${fallback}, or leave it unset`,
    });
  return value;
}

/** A switch: 1 on, 0 off, unset the fallback. */
export function flag(name: string, fallback: boolean): boolean {
  const text = process.env[name];
  if (text === undefined || text === '') return fallback;
  if (text === '1' || text === '0') return text === '1';
  throw new InputError('BAD_SETTING', `${name}=${text} is neither 1 nor 0`, {
    hint: `give 1 or 0, or leave it unset (${fallback ? 1 : 0})`,
  });
}

/** The major version of Node.js the image and the stacks ship (Dockerfile, the boot scripts). */
export const shippedNodeMajor = 24;

/**
 * The Node.js that Portal ships, fetched from the npm registry the first time by scripts/with-node.sh
 * and kept in its cache: the nodes are measured on what users run, not on whatever this machine has.
 */
function shippedNode(): string {
  try {
    return execFileSync(
      'bash',
      [join(root, 'scripts/with-node.sh'), String(shippedNodeMajor), 'node', '-p', 'process.execPath'],
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] },
    ).trim();
  } catch {
    throw new RuntimeFailure('NODE_NOT_FETCHED', `could not fetch Node.js ${shippedNodeMajor} to run the nodes on`, {
      hint: 'check that the npm registry is reachable, or run on this machine\'s Node.js: BENCH_NODE="$(which node)"',
    });
  }
}

/**
 * A comma-separated subset of `all` from the setting `name` (what it names one `kind` each), or all of
 * them when unset.
 */
export function subset<T extends string>(name: string, all: readonly T[], kind: string): ReadonlySet<T> {
  const text = process.env[name];
  if (!text) return new Set(all);
  const names = text.split(',').map((item) => item.trim());
  const unknown = names.filter((item) => !(all as readonly string[]).includes(item));
  if (unknown.length > 0)
    throw new InputError('BAD_SETTING', `${name}=${text} names no ${kind} ${unknown.join(', ')}`, {
      hint: `give some of ${all.join(', ')}, comma-separated, or leave it unset`,
    });
  return new Set(names as T[]);
}

export const phaseNames = ['throughput', 'latency', 'cpu', 'pgbench', 'idle'] as const;
export type PhaseName = (typeof phaseNames)[number];
export const pathNames = ['relayed', 'direct'] as const;

let chosenNode: string | undefined;

export const settings = {
  root,
  bundle: join(root, 'dist/portal.mjs'),
  /** Seconds of each iperf3 throughput run. */
  seconds: count('BENCH_SECONDS', 5),
  /** iperf3 rounds; each target takes a turn per round and gets the median. */
  repeats: count('BENCH_REPEATS', 3),
  roundTrips: count('BENCH_ROUND_TRIPS', 2000),
  newConnections: count('BENCH_CONNECTIONS', 1000),
  warmUpRoundTrips: 500,
  /**
   * V8 goes on compiling a Node.js process's connection path for thousands of connections: on this
   * machine, after 500 connections, the inlet's CPU per connection was 365 µs over the next 2,000,
   * then 210 µs and 190 µs over the 2,000 after each, and its p50 went from 0.60 ms to 0.40 ms.
   */
  warmUpConnections: 4000,
  /** Seconds of each pgbench run. */
  pgbenchSeconds: count('BENCH_PGBENCH_SECONDS', 10),
  /** Alternating pgbench rounds; each target keeps its best. */
  pgbenchRounds: count('BENCH_PGBENCH_ROUNDS', 2),
  pgbenchScale: count('BENCH_PGBENCH_SCALE', 10),
  /** Bytes carried while CPU time is counted (iperf3 -n). */
  cpuBytes: count('BENCH_CPU_BYTES', 1024 ** 3),
  idleConnections: count('BENCH_IDLE_CONNECTIONS', 10_000),
  idleSeconds: count('BENCH_IDLE_SECONDS', 60),
  /** Connections opened (or checked) at once while the idle set is built: below ssh's listen backlog of 128. */
  idleBatch: 100,
  /**
   * Whether the runtime floor (chains of bare Node.js proxies) is measured beside each path: BENCH_FLOORS=0
   * leaves it out.
   */
  floors: flag('BENCH_FLOORS', true),
  /**
   * Whether the TLS floor (the same chains with Node.js TLS from the first proxy to the last) is
   * measured too: BENCH_TLS_FLOORS=0 leaves it out. It is not judged: it shows what Node.js's own TLS
   * costs of the distance between Portal and its floor.
   */
  tlsFloors: flag('BENCH_TLS_FLOORS', true),
  /** The phases to run, all by default (a comma-separated subset of phaseNames). */
  phases: subset('BENCH_PHASES', phaseNames, 'phase'),
  /** The Portal paths measured, both by default (a comma-separated subset of pathNames). */
  paths: subset('BENCH_PATHS', pathNames, 'path'),
  postgresBin: process.env.BENCH_POSTGRES_BIN ?? '/usr/lib/postgresql/15/bin',
  /**
   * The Node.js that runs the Portal nodes, the relay node and the floor's proxies: the shipped major
   * by default; BENCH_NODE chooses another, such as this machine's: BENCH_NODE="$(which node)". The
   * controller stays on this one, which loads its native module.
   */
  get nodeBinary(): string {
    // Fetched when first asked (as the run starts), not as the module loads: the bench's tests load it.
    chosenNode ??= process.env.BENCH_NODE || shippedNode();
    return chosenNode;
  },
  /**
   * Extra Node.js arguments for the Portal nodes, to profile them:
   * BENCH_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof".
   */
  nodeArgs: (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter((argument) => argument !== ''),
} as const;
