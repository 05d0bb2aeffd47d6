/**
 * The helper processes of one benchmark run: each is started here, remembered, and stopped by
 * stopStarted() with whatever it forked (sshd's per-connection children, postgres' backends), also when
 * the run fails.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { basename, join } from 'node:path';
import { once } from 'node:events';
import { connect, createServer, type AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';
import { descendants, openFilesLimit } from './proc-stats.ts';

export interface StartOptions {
  readonly env?: NodeJS.ProcessEnv;
  /** Resolves once a line of stdout or stderr matches; without it the output is discarded. */
  readonly ready?: RegExp;
  /** How the process is asked to stop. @default 'SIGTERM' */
  readonly stopSignal?: NodeJS.Signals;
  readonly uid?: number;
  readonly gid?: number;
  /** Raise the open-files limit towards this (at most the hard limit) before exec, through bash, as Node cannot. */
  readonly openFiles?: number;
}

export interface Helper {
  readonly child: ChildProcess;
  readonly pid: number;
  /** The line that matched `ready` ('' without one). */
  readonly line: string;
}

interface Started {
  readonly child: ChildProcess;
  readonly stopSignal: NodeJS.Signals;
}

const started: Started[] = [];

/**
 * Starts a helper. Without `ready` its output is discarded: this script blocks in iperf3 and pgbench
 * runs, and a pipe nobody reads would fill up and stall the writer (iperf3's server prints every
 * second). With `ready` the lines go on being read (and dropped) after the match, for the same reason.
 *
 * Each helper gets a session of its own, as a service would: with the kernel's autogroup scheduling
 * (on by default), processes that share a session share one CPU slice, so helpers left in this
 * script's session would be starved beside the embedded controller, which detaches.
 */
export function start(command: string, args: readonly string[], options: StartOptions = {}): Promise<Helper> {
  const { ready } = options;
  const [file, argv] = withOpenFiles(command, args, options.openFiles ?? 0);
  // BENCH_LOG_DIR keeps every helper's output, one file per process (named by its pid), to look into a run.
  const logDirectory = process.env.BENCH_LOG_DIR;
  const child = spawn(file, argv, {
    env: { ...process.env, ...options.env },
    detached: true,
    stdio: ready || logDirectory ? ['ignore', 'pipe', 'pipe'] : 'ignore',
    ...(options.uid === undefined ? {} : { uid: options.uid, gid: options.gid }),
  });
  started.push({ child, stopSignal: options.stopSignal ?? 'SIGTERM' });
  if (logDirectory) {
    const log = createWriteStream(join(logDirectory, `${child.pid}-${basename(command)}.log`));
    log.write(`${[command, ...args].join(' ')}\n`);
    for (const stream of [child.stdout, child.stderr]) stream?.pipe(log, { end: false });
  }
  const lines: string[] = [];
  return new Promise((resolve, reject) => {
    const fail = (reason: string) =>
      reject(new Error(`${command}: ${reason}${lines.length > 0 ? `:\n${lines.slice(-20).join('\n')}` : ''}`));
    child.once('error', (error) => fail(error.message));
    child.once('exit', (code, signal) => fail(`exited ${signal ?? code}`));
    if (!ready) {
      child.once('spawn', () => resolve({ child, pid: child.pid as number, line: '' }));
      return;
    }
    const timer = setTimeout(() => fail(`no ${ready} in 60 s`), 60_000);
    for (const stream of [child.stdout, child.stderr]) {
      createInterface({ input: stream! }).on('line', (line) => {
        if (lines.length < 200) lines.push(line);
        if (ready.test(line)) {
          clearTimeout(timer);
          resolve({ child, pid: child.pid as number, line });
        }
      });
    }
  });
}

/**
 * The command line that runs `command` with the open-files limit raised towards `openFiles` (at most
 * to the hard limit) through bash, as Node cannot raise it; exec keeps the pid.
 */
export function withOpenFiles(command: string, args: readonly string[], openFiles: number): [string, string[]] {
  const limit = openFilesLimit();
  const wanted = Math.min(openFiles, limit.hard);
  return wanted > limit.soft
    ? ['bash', ['-c', `ulimit -n ${wanted} && exec "$0" "$@"`, command, ...args]]
    : [command, [...args]];
}

function signal(pid: number, name: NodeJS.Signals | 0): boolean {
  try {
    process.kill(pid, name);
    return true;
  } catch {
    return false;
  }
}

async function gone(pid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (!signal(pid, 0)) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return !signal(pid, 0);
}

/** Stops one helper and what it forked; the forks are listed first, as they are re-parented once it exits. */
export async function stop(child: ChildProcess, how: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const forks = descendants(child.pid);
  const exited = once(child, 'exit');
  child.kill(how);
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
  for (const pid of forks) {
    if (signal(pid, 'SIGTERM') && !(await gone(pid, 5000))) signal(pid, 'SIGKILL');
  }
}

/** Stops every helper, newest first. */
export async function stopStarted(): Promise<void> {
  for (const { child, stopSignal } of started.splice(0).reverse()) await stop(child, stopSignal);
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Waits until something accepts connections on the port (ssh -L opens its listeners asynchronously). */
export async function listening(port: number): Promise<void> {
  for (let attempt = 0; attempt < 500; attempt += 1) {
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
  throw new Error(`nothing listens on 127.0.0.1:${port} after 10 s`);
}
