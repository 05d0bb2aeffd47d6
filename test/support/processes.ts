/**
 * Real processes for end-to-end tests: the bundled `portal` CLI, with each process's output collected
 * line by line so a test can wait for a readiness line instead of sleeping; every process is stopped
 * by the test that started it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { NodeShowRunning } from '../../src/node/show.ts';
import { projectRoot } from './usecases.ts';

export const portalBundle = join(projectRoot, 'dist/portal.mjs');

export interface Running {
  readonly child: ChildProcess;
  readonly lines: string[];
  /** Resolves with the first line (past or future) that matches. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** Resolves with the exit code once the process exited and `lines` holds all it printed. */
  ended(): Promise<number | null>;
  /** SIGTERM, then SIGKILL after 5 s; resolves with the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL at once: a crash. */
  kill(): Promise<void>;
}

export interface StartOptions {
  readonly env?: NodeJS.ProcessEnv;
  readonly cwd?: string;
  /** Only `env`, none of this process's environment: what a container starts with. */
  readonly isolated?: boolean;
  readonly user?: { readonly uid: number; readonly gid: number };
}

export function start(command: string, args: readonly string[], options: StartOptions = {}): Running {
  const env = options.isolated ? { ...options.env } : { ...process.env, NODE_DEVELOPER: undefined, ...options.env };
  const child = spawn(command, args, {
    env,
    cwd: options.cwd ?? projectRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
    ...options.user,
  });
  const lines: string[] = [];
  const listeners = new Set<(line: string) => void>();
  const readers: Promise<unknown>[] = [];
  for (const stream of [child.stdout, child.stderr]) {
    if (!stream) continue;
    const reader = createInterface({ input: stream });
    readers.push(once(reader, 'close'));
    reader.on('line', (line) => {
      lines.push(line);
      if (process.env.PORTAL_TEST_LOG === '1') process.stderr.write(`[${args.slice(0, 3).join(' ')}] ${line}\n`);
      for (const listener of listeners) listener(line);
    });
  }
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  // A loaded machine may deliver the last lines after 'exit'; a descendant holding the pipes open
  // must not keep a waiter from learning of the exit, hence the bound.
  const outputRead = exited.then(async (code) => {
    let bound: NodeJS.Timeout | undefined;
    await Promise.race([Promise.all(readers), new Promise((resolve) => (bound = setTimeout(resolve, 2000)))]);
    clearTimeout(bound);
    return code;
  });
  return {
    child,
    lines,
    waitFor(pattern, timeoutMs = 20_000) {
      const seen = lines.find((line) => pattern.test(line));
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          listeners.delete(listener);
          reject(
            new Error(
              `timed out waiting for ${pattern} from ${command} ${args.join(' ')}; it printed:\n${lines.join('\n')}`,
            ),
          );
        }, timeoutMs);
        const listener = (line: string) => {
          if (!pattern.test(line)) return;
          clearTimeout(timer);
          listeners.delete(listener);
          resolve(line);
        };
        listeners.add(listener);
        void outputRead.then((code) => {
          if (!listeners.has(listener)) return;
          clearTimeout(timer);
          listeners.delete(listener);
          reject(
            new Error(`${command} ${args.join(' ')} exited (${code}) before printing ${pattern}:\n${lines.join('\n')}`),
          );
        });
      });
    },
    ended: () => outputRead,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
    async kill() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGKILL');
      await exited;
    },
  };
}

/** The bundled CLI as a process, with its own PORTAL_HOME. */
export function startPortal(home: string, args: readonly string[], env: NodeJS.ProcessEnv = {}): Running {
  return start(process.execPath, [portalBundle, ...args], { env: { PORTAL_HOME: home, ...env } });
}

/** Runs the bundled CLI to completion. */
export function portal(
  home: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return portalAt(portalBundle)(home, args, env);
}

/** `portal` as above, run from another copy of the bundle. */
export function portalAt(bundle: string): typeof portal {
  return (home, args, env = {}) =>
    runToEnd(process.execPath, [bundle, ...args], {
      env: { ...process.env, NODE_DEVELOPER: undefined, PORTAL_HOME: home, ...env },
    });
}

/** Runs `command` with exactly `env` to completion, with what it printed. */
export async function runToEnd(
  command: string,
  args: readonly string[],
  options: { readonly env: NodeJS.ProcessEnv; readonly cwd?: string },
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  // 'close', not 'exit': a loaded machine may deliver the last of stdout after the process exited.
  const [code] = (await once(child, 'close')) as [number | null];
  return { code, stdout, stderr };
}

/** A folder holding a `portal` command that runs the bundle: put it first on PATH to run scripts as written. */
export async function portalOnPath(directory: string): Promise<string> {
  const bin = join(directory, 'bin');
  await mkdir(bin, { recursive: true });
  await writeFile(join(bin, 'portal'), `#!/bin/sh\nexec '${process.execPath}' '${portalBundle}' "$@"\n`);
  await chmod(join(bin, 'portal'), 0o755);
  return bin;
}

/**
 * A port that was free a moment ago, for servers that cannot take port 0 (PostgreSQL) and commands
 * written with a port. It is drawn from below the kernel's ephemeral range: a port from that range (what
 * listening on port 0 gives) may be taken meanwhile as the local port of any connection another lane
 * opens, and a node that is restarted on its port would then find it in use. Between drawing a port and
 * listening on it a test may spend seconds (the README walkthrough enrolls first), so a port is never
 * handed out twice: each lane draws from its own share of the range (PORTAL_TEST_PORT_SHARE, "index/count"),
 * and within a lane a port once given is not given again until half the share has been.
 */
export async function freePort(): Promise<number> {
  const [low, high] = portShare();
  for (;;) {
    if (handedOut.size * 2 >= high - low) handedOut.clear();
    const port = low + Math.floor(Math.random() * (high - low));
    if (handedOut.has(port)) continue;
    if (!(await listensOn(port))) continue;
    handedOut.add(port);
    return port;
  }
}

const handedOut = new Set<number>();
let share: [number, number] | undefined;

/** The lane's share of the ports below the ephemeral range: [first, past the last), read once. */
function portShare(): [number, number] {
  share ??= readPortShare();
  return share;
}

function readPortShare(): [number, number] {
  const [ephemeralFirst] = ephemeralRange();
  const low = Math.max(1024, ephemeralFirst - 8_000);
  if (ephemeralFirst - low < 1_000) throw new Error(`the ephemeral ports start at ${ephemeralFirst}: no room below`);
  const [index, count] = (process.env.PORTAL_TEST_PORT_SHARE ?? '0/1').split('/').map(Number) as [number, number];
  if (!(Number.isInteger(index) && Number.isInteger(count) && index >= 0 && index < count))
    throw new Error(`PORTAL_TEST_PORT_SHARE takes "index/count", not "${process.env.PORTAL_TEST_PORT_SHARE}"`);
  const size = Math.floor((ephemeralFirst - low) / count);
  return [low + index * size, low + (index + 1) * size];
}

/** `count` consecutive ports that were free a moment ago (as freePort), for a compiled file that numbers them. */
export async function freePortRun(count: number): Promise<number> {
  for (;;) {
    const first = await freePort();
    const [, high] = portShare();
    let free = first + count <= high;
    for (let next = first + 1; free && next < first + count; next += 1)
      free = !handedOut.has(next) && (await listensOn(next));
    if (!free) continue;
    for (let next = first + 1; next < first + count; next += 1) handedOut.add(next);
    return first;
  }
}

function ephemeralRange(): [number, number] {
  try {
    const [first, last] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8')
      .trim()
      .split(/\s+/)
      .map(Number);
    if (Number.isInteger(first) && Number.isInteger(last)) return [first as number, last as number];
  } catch {
    // Not Linux: the range Linux uses by default.
  }
  return [32_768, 60_999];
}

/** Whether a listener could take `port` on loopback now (it is closed again before this resolves). */
async function listensOn(port: number): Promise<boolean> {
  const server = createServer();
  const listening = await new Promise<boolean>((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => resolve(true));
  });
  if (listening) await new Promise<void>((resolve) => server.close(() => resolve()));
  return listening;
}

/** Where the node's status server answers `path` (its port from PORTAL_HOME/node/runtime.json). */
async function statusUrl(home: string, path: string): Promise<string> {
  const { readFile } = await import('node:fs/promises');
  const { statusPort } = JSON.parse(await readFile(join(home, 'node', 'runtime.json'), 'utf8')) as {
    statusPort: number;
  };
  return `http://127.0.0.1:${statusPort}${path}`;
}

/** The node's status as its status server reports it. */
export async function nodeStatus(home: string): Promise<NodeShow> {
  return (await (await fetch(await statusUrl(home, '/show'))).json()) as NodeShow;
}

/** One unlabelled sample of the node's /metrics, by name; undefined when it is not there. */
export async function nodeMetric(home: string, name: string): Promise<number | undefined> {
  const text = await (await fetch(await statusUrl(home, '/metrics'))).text();
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${name} `));
  return line === undefined ? undefined : Number(line.slice(name.length + 1));
}

/** Polls the node's /show until `check` holds; fails with the last answer after `limitMs`. */
export async function statusWhen(
  home: string,
  check: (shown: NodeShow) => boolean,
  limitMs = 10_000,
): Promise<NodeShow> {
  const started = Date.now();
  for (;;) {
    const shown = await nodeStatus(home);
    if (check(shown)) return shown;
    if (Date.now() - started > limitMs) throw new Error(`not within ${limitMs} ms: ${JSON.stringify(shown)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** What a running node's status server answers (one shape, declared by its producer). */
export type NodeShow = NodeShowRunning;

export async function inletPort(home: string): Promise<number> {
  const shown = await nodeStatus(home);
  return Number(shown.inlets[0]?.listening?.split(':').at(-1));
}
