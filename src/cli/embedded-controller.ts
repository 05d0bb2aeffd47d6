/**
 * The embedded default controller: `portal enroll` with no --controller starts one in the background,
 * with its state under $PORTAL_HOME/controller and its sealing key under $PORTAL_HOME/keys (no setup:
 * the key is made on first start), listening on loopback unless `portal enroll --listen` says otherwise;
 * its log goes to $PORTAL_HOME/controller/controller.log (bounded); `portal controller stop` and
 * `portal reset` stop it. One whose store moved to PostgreSQL (migrate-store) is never started again.
 */
import { spawn } from 'node:child_process';
import { closeSync, fstatSync, openSync } from 'node:fs';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { createInterface } from 'node:readline';
import { refuseMovedStore } from '../controller/store/moved-marker.ts';
import { socketHost } from '../shared/address.ts';
import { rotateIfFull } from '../shared/bounded-log.ts';
import { RuntimeFailure } from '../shared/errors.ts';
import { drainFromEnvironment } from '../shared/graceful-stop.ts';
import { processGone, processStart } from '../shared/process-state.ts';
import { stopWaitMs } from '../shared/stop-wait.ts';
import { controllerProbeMs, controllerStartMs, exitPollMs, killWaitMs } from './limits.ts';
import {
  embeddedControllerDirectory,
  embeddedControllerLog,
  embeddedControllerRuntime,
  embeddedControllerSealingKey,
  embeddedControllerSettings,
  embeddedControllerStore,
} from './home.ts';

export interface EmbeddedController {
  readonly pid: number;
  /** The public address: what tickets carry. */
  readonly address: string;
  readonly fingerprint: string;
  /** Where it listens (from a controller this call started, or the runtime file of one of this version). */
  readonly listening?: string;
  /** How long it drains its connections when told to stop (from its runtime file, of this version). */
  readonly drainMs?: number;
  /** When its process started, as the kernel counts it (from its runtime file, of this version). */
  readonly processStart?: string;
  /** A fresh one-time admin code (only from a controller this call started). */
  readonly adminCode?: string;
  /** Where its web console is served (from a controller this call started). */
  readonly console?: string;
}

/** Where the embedded controller listens and what address tickets carry; kept in embedded.json for restarts. */
export interface EmbeddedControllerSettings {
  /** host:port; port 0 lets the system choose (the chosen port is kept for later starts). @default "127.0.0.1:0" */
  readonly listen: string;
  /** host:port nodes dial, written into tickets. @default the listening address */
  readonly publicAddress?: string;
}

/** The settings the embedded controller last started with, if it ever started with this version. */
export async function readEmbeddedControllerSettings(home: string): Promise<EmbeddedControllerSettings | undefined> {
  try {
    const settings = JSON.parse(
      await readFile(embeddedControllerSettings(home), 'utf8'),
    ) as Partial<EmbeddedControllerSettings>;
    if (typeof settings.listen !== 'string') return undefined;
    return {
      listen: settings.listen,
      ...(typeof settings.publicAddress === 'string' ? { publicAddress: settings.publicAddress } : {}),
    };
  } catch {
    return undefined;
  }
}

/** Argument vector that runs this same CLI again (source through tsx, or the bundle). */
function selfCommand(): { command: string; args: string[] } {
  return { command: process.execPath, args: [...process.execArgv, process.argv[1] as string] };
}

/**
 * The embedded controller, if it is running: its runtime file names it and it accepts connections
 * where it listens (a pid alone can outlive its process as a zombie where nothing reaps orphans).
 */
export async function readEmbeddedController(home: string): Promise<EmbeddedController | undefined> {
  let runtime: EmbeddedController;
  try {
    runtime = JSON.parse(await readFile(embeddedControllerRuntime(home), 'utf8')) as EmbeddedController;
  } catch {
    return undefined;
  }
  // The process it names must still run, and be that process (a pid is given out again in time): else
  // another listener on its port (a replica started in this home, say) would be taken for it.
  if (typeof runtime.pid !== 'number' || processGone(runtime.pid)) return undefined;
  const started = processStart(runtime.pid);
  if (runtime.processStart !== undefined && started !== undefined && started !== runtime.processStart) return undefined;
  // A runtime file from before it named where the controller listens: the settings it started with.
  const listening = runtime.listening ?? (await readEmbeddedControllerSettings(home))?.listen ?? runtime.address;
  return (await accepts(reachedFromHere(listening))) ? runtime : undefined;
}

/**
 * Where this machine reaches a controller that listens on `listening`: that address, or loopback for
 * every address. Never its public address, which may not lead back to this machine (a NAT, a name
 * other machines resolve).
 */
function reachedFromHere(listening: string): string {
  const at = listening.lastIndexOf(':');
  const host = listening.slice(0, at);
  const loopback: Record<string, string> = { '0.0.0.0': '127.0.0.1', '[::]': '[::1]' };
  return `${loopback[host] ?? host}${listening.slice(at)}`;
}

function accepts(address: string): Promise<boolean> {
  const port = Number(address.split(':').at(-1));
  const host = socketHost(address.slice(0, address.lastIndexOf(':')));
  return new Promise((resolve) => {
    const socket = connect({ host, port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.setTimeout(controllerProbeMs, () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * Starts the embedded controller in the background and waits until it listens. Its standard error
 * goes to its log file from the first byte (so a failure to start is found there), and the controller
 * itself keeps that file bounded (--log-file).
 */
export async function startEmbeddedController(
  home: string,
  settings: EmbeddedControllerSettings = { listen: '127.0.0.1:0' },
): Promise<EmbeddedController> {
  // Said here in its own words (exit 2), rather than as a start that failed: the controller refuses it too.
  await refuseMovedStore(embeddedControllerStore(home));
  const directory = embeddedControllerDirectory(home);
  await mkdir(directory, { recursive: true, mode: 0o700 });
  const logPath = embeddedControllerLog(home);
  rotateIfFull(logPath);
  const log = openSync(logPath, 'a', 0o600);
  const logStart = fstatSync(log).size;
  const { command, args } = selfCommand();
  const child = spawn(
    command,
    [
      ...args,
      'controller',
      'start',
      '--data-dir',
      directory,
      '--sealing-key-file',
      embeddedControllerSealingKey(home),
      '--listen',
      settings.listen,
      ...(settings.publicAddress ? ['--public-address', settings.publicAddress] : []),
      '--ready-json',
      '--runtime-file',
      embeddedControllerRuntime(home),
      '--log-file',
      logPath,
    ],
    { detached: true, stdio: ['ignore', 'pipe', log] },
  );
  closeSync(log);
  const stdout = child.stdout;
  if (!stdout) throw new Error('no pipe to the controller');
  try {
    const line = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`it did not start within ${controllerStartMs / 1000} s`)),
        controllerStartMs,
      );
      const lines = createInterface({ input: stdout });
      lines.once('line', (text) => {
        clearTimeout(timer);
        lines.close();
        resolve(text);
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`it exited with code ${code}`));
      });
    });
    stdout.destroy();
    child.unref();
    const started = JSON.parse(line) as EmbeddedController & { listening: string };
    // The port the system chose is kept, so a restart (after a reboot) keeps the address tickets carry.
    const kept: EmbeddedControllerSettings = {
      listen: started.listening,
      ...(settings.publicAddress ? { publicAddress: settings.publicAddress } : {}),
    };
    const path = embeddedControllerSettings(home);
    await writeFile(`${path}.tmp`, `${JSON.stringify(kept)}\n`, { mode: 0o600 });
    await rename(`${path}.tmp`, path);
    return started;
  } catch (error) {
    child.kill();
    const reason = (await failureLine(logPath, logStart)) ?? (error as Error).message;
    throw new RuntimeFailure('CONTROLLER_START_FAILED', `cannot start the embedded controller: ${reason}`, {
      hint: `see ${logPath}`,
    });
  }
}

/** The one-line failure the controller wrote to its log in this run, without the "portal: " prefix. */
async function failureLine(logPath: string, from: number): Promise<string | undefined> {
  const text = await readFile(logPath).then(
    (bytes) => bytes.subarray(from).toString('utf8'),
    () => '',
  );
  const line = text
    .split('\n')
    .filter((candidate) => candidate.startsWith('portal: '))
    .at(-1);
  return line?.slice('portal: '.length);
}

/**
 * SIGTERM, then waits until the process has exited: it stops accepting at once but drains its
 * connections first, and whoever called this may remove its data directory next. One that has not
 * exited after its drain and a margin is killed.
 */
export async function stopEmbeddedController(controller: EmbeddedController): Promise<void> {
  if (!signal(controller.pid, 'SIGTERM')) return;
  const drainMs = controller.drainMs ?? drainFromEnvironment(process.env);
  if (await exits(controller.pid, stopWaitMs(drainMs))) return;
  if (!signal(controller.pid, 'SIGKILL')) return;
  if (await exits(controller.pid, killWaitMs)) return;
  throw new RuntimeFailure(
    'STOP_TIMED_OUT',
    `the embedded controller (process ${controller.pid}) did not exit, even after SIGKILL; nothing was removed`,
    {
      hint: `check it with ps -p ${controller.pid}, and run the command again once it is gone`,
    },
  );
}

/** Sends `name` to `pid`; false if there is no such process. */
function signal(pid: number, name: NodeJS.Signals): boolean {
  try {
    process.kill(pid, name);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw new RuntimeFailure(
      'STOP_FAILED',
      `cannot stop the embedded controller (process ${pid}): ` +
        `${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      {
        hint: `stop it as the user it runs as (kill ${pid}), then run the command again`,
      },
    );
  }
}

/** Resolves true once `pid` has exited, or false after `limitMs`. */
async function exits(pid: number, limitMs: number): Promise<boolean> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    if (processGone(pid)) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, exitPollMs));
  }
}
