/**
 * The embedded default controller: `portal enroll` with no --controller starts one in the background,
 * with its state under $PORTAL_HOME/controller and its sealing key under $PORTAL_HOME/keys (no setup:
 * the key is made on first start), listening on loopback; `portal reset` stops it.
 */
import { spawn } from 'node:child_process';
import { closeSync, fstatSync, openSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { RuntimeFailure } from '../shared/errors.ts';
import { embeddedControllerDirectory, embeddedControllerRuntime, embeddedControllerSealingKey } from './home.ts';

export interface EmbeddedController {
  readonly pid: number;
  readonly address: string;
  readonly fingerprint: string;
  /** A fresh one-time admin code (only from a controller this call started). */
  readonly adminCode?: string;
}

/** Argument vector that runs this same CLI again (source through tsx, or the bundle). */
function selfCommand(): { command: string; args: string[] } {
  return { command: process.execPath, args: [...process.execArgv, process.argv[1] as string] };
}

/**
 * The embedded controller, if it is running: its runtime file names it and it accepts connections
 * (a pid alone can outlive its process as a zombie where nothing reaps orphans).
 */
export async function readEmbeddedController(home: string): Promise<EmbeddedController | undefined> {
  let runtime: EmbeddedController;
  try {
    runtime = JSON.parse(await readFile(embeddedControllerRuntime(home), 'utf8')) as EmbeddedController;
  } catch {
    return undefined;
  }
  return (await accepts(runtime.address)) ? runtime : undefined;
}

function accepts(address: string): Promise<boolean> {
  const port = Number(address.split(':').at(-1));
  const host = address.slice(0, address.lastIndexOf(':')).replace(/^\[|\]$/g, '');
  return new Promise((resolve) => {
    const socket = connect({ host, port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.setTimeout(1000, () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Starts the embedded controller in the background and waits until it listens. */
export async function startEmbeddedController(home: string, port = 0): Promise<EmbeddedController> {
  const directory = embeddedControllerDirectory(home);
  await mkdir(directory, { recursive: true, mode: 0o700 });
  const logPath = join(directory, 'controller.log');
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
      `127.0.0.1:${port}`,
      '--ready-json',
      '--runtime-file',
      embeddedControllerRuntime(home),
    ],
    { detached: true, stdio: ['ignore', 'pipe', log] },
  );
  closeSync(log);
  const stdout = child.stdout;
  if (!stdout) throw new Error('no pipe to the controller');
  try {
    const line = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('it did not start within 20 s')), 20_000);
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
    return JSON.parse(line) as EmbeddedController;
  } catch (error) {
    child.kill();
    const reason = (await failureLine(logPath, logStart)) ?? (error as Error).message;
    throw new RuntimeFailure('CONTROLLER_START_FAILED', `cannot start the embedded controller: ${reason}`, { hint: `see ${logPath}` });
  }
}

/** The one-line failure the controller wrote to its log in this run, without the "portal: " prefix. */
async function failureLine(logPath: string, from: number): Promise<string | undefined> {
  const text = await readFile(logPath).then((bytes) => bytes.subarray(from).toString('utf8'), () => '');
  const line = text
    .split('\n')
    .filter((candidate) => candidate.startsWith('portal: '))
    .at(-1);
  return line?.slice('portal: '.length);
}

export function stopEmbeddedController(controller: EmbeddedController): Promise<void> {
  try {
    process.kill(controller.pid, 'SIGTERM');
  } catch {
    return Promise.resolve();
  }
  // Stopped once it no longer accepts connections (its pid may linger as a zombie).
  return new Promise((resolve) => {
    const deadline = Date.now() + 5000;
    const check = async () => {
      if (!(await accepts(controller.address))) return resolve();
      if (Date.now() > deadline) {
        process.kill(controller.pid, 'SIGKILL');
        resolve();
      } else setTimeout(() => void check(), 25);
    };
    void check();
  });
}
