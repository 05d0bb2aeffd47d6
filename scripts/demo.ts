/**
 * `npm start`: the generic webhook use case, end to end on this machine, with the real CLI. Compiles
 * the manifest, enrolls with the embedded controller, issues both tickets with the compiled tickets.sh,
 * starts the compiled webhook receiver, the outlet and the inlet, posts a webhook through the inlet,
 * shows the nodes, and stops everything. Ports are chosen by the system; nothing outside a temporary
 * directory is touched.
 *
 * `npm start -- --keep` also prints each command as a user would type it (with the environment it
 * sets), then keeps everything running with a webhook every few seconds and prints a sign-in link to
 * the web console, until Ctrl-C; it then stops the processes and keeps the directory, with everything
 * enrolled in it.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir, hostname } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { shellQuote } from '../src/compile/quote.ts';
import type { NodeConfig } from '../src/shared/types/node-config.ts';

const root = new URL('..', import.meta.url).pathname;
const bundle = join(root, 'dist/portal.mjs');
const work = mkdtempSync(join(tmpdir(), 'portal-demo-'));
const children: ChildProcess[] = [];
const tty = process.stdout.isTTY;
const keep = process.argv.slice(2).includes('--keep');

/**
 * A command as a user would type it: the variables it sets, then its words. A variable given as
 * `{ file }` is written as "$(cat FILE)", as one passes a secret from a file without showing it.
 */
function typed(environment: Record<string, string | { file: string }>, words: readonly string[], cwd?: string): string {
  const variables = Object.entries(environment).map(
    ([name, value]) =>
      `${name}=${typeof value === 'string' ? shellQuote(value) : `"$(cat ${shellQuote(value.file)})"`}`,
  );
  const command = [...variables, ...words.map(shellQuote)].join(' ');
  return cwd ? `cd ${shellQuote(cwd)} && ${command}` : command;
}

/**
 * One step of the list: a spinner while it runs on a terminal, then ✔ or ✖ with what it found, and with
 * --keep the commands it ran.
 */
async function step<T>(
  title: string,
  run: () => Promise<T> | T,
  done: (value: T) => string = () => title,
  commands: readonly string[] = [],
): Promise<T> {
  const frames = '⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏';
  let frame = 0;
  const spinner = tty
    ? setInterval(() => process.stdout.write(`\r  ${frames[frame++ % frames.length]} ${title}…`), 80)
    : undefined;
  if (!tty) process.stdout.write(`  … ${title}\n`);
  try {
    const value = await run();
    clearInterval(spinner);
    process.stdout.write(`${tty ? '\r\x1b[2K' : ''}  ✔ ${done(value)}\n`);
    if (keep) for (const command of commands) process.stdout.write(`      $ ${command}\n`);
    return value;
  } catch (error) {
    clearInterval(spinner);
    process.stdout.write(`${tty ? '\r\x1b[2K' : ''}  ✖ ${title}: ${(error as Error).message}\n`);
    throw error;
  }
}

function portal(home: string, args: string[]): string {
  const result = spawnSync(process.execPath, [bundle, ...args], {
    env: { ...process.env, PORTAL_HOME: home },
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(result.stderr.trim() || `portal ${args.join(' ')} failed`);
  return result.stdout;
}

/** Starts a process and resolves with the first output line matching `ready`. */
function startUntil(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  ready: RegExp,
): Promise<{ child: ChildProcess; line: string; lines: string[] }> {
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  const lines: string[] = [];
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no "${ready.source}" within 30 s:\n${lines.join('\n')}`)), 30_000);
    for (const stream of [child.stdout, child.stderr]) {
      createInterface({ input: stream }).on('line', (line) => {
        lines.push(line);
        if (ready.test(line)) {
          clearTimeout(timer);
          resolve({ child, line, lines });
        }
      });
    }
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${command} exited (${code}):\n${lines.join('\n')}`));
    });
  });
}

async function main(): Promise<void> {
  console.log('Portal demo: the generic webhook use case, on this machine\n');
  const adminHome = join(work, 'admin');
  const out = join(work, 'out');
  const bin = join(work, 'bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'portal'), `#!/bin/sh\nexec '${process.execPath}' '${bundle}' "$@"\n`);
  chmodSync(join(bin, 'portal'), 0o755);
  if (keep)
    console.log(
      `Each step shows the commands it ran; portal is ${join(bin, 'portal')} (it runs ${bundle}): ` +
        `to type them yourself, first\n      $ export PATH=${shellQuote(bin)}:"$PATH"\n`,
    );

  const compileArgs = ['compile', join(root, 'usecases/webhook.yaml'), '--out', out];
  await step(
    'compile usecases/webhook.yaml',
    () => portal(adminHome, compileArgs),
    () => `compiled usecases/webhook.yaml into ${join(out, 'webhook')}`,
    [typed({ PORTAL_HOME: adminHome }, ['portal', ...compileArgs])],
  );

  await step(
    'enroll with the embedded controller and issue the two tickets (tickets.sh)',
    () => {
      const result = spawnSync('bash', [join(out, 'webhook/tickets.sh'), '--local'], {
        cwd: work,
        env: { ...process.env, PATH: `${bin}:${process.env.PATH}`, PORTAL_HOME: adminHome },
        encoding: 'utf8',
      });
      if (result.status !== 0) throw new Error(result.stderr.trim());
      return JSON.parse(portal(adminHome, ['project', 'show'])) as { id: string; controller: string };
    },
    (project) =>
      `enrolled: project ${project.id} on the embedded controller ${project.controller}; ` +
      'wrote outlet.ticket and inlet.ticket',
    [
      typed({ PORTAL_HOME: adminHome }, ['bash', join(out, 'webhook/tickets.sh'), '--local'], work),
      typed({ PORTAL_HOME: adminHome }, ['portal', 'project', 'show']),
    ],
  );

  const receiverArgs = [join(out, 'webhook/webhook_receiver.py'), '--port', '0'];
  const receiver = await step(
    'start the compiled webhook receiver',
    () => startUntil('python3', receiverArgs, {}, /listening on/),
    (started) => `webhook receiver: ${started.line}`,
    [typed({}, ['python3', ...receiverArgs])],
  );
  const receiverPort = Number(/:(\d+)$/.exec(receiver.line)?.[1]);

  const config = (role: string) => JSON.parse(readFileSync(join(out, `webhook/${role}.json`), 'utf8')) as NodeConfig;
  const outletConfig = config('outlet');
  outletConfig['http-server-port'] = 0;
  outletConfig['tcp-outlet']!.to = `localhost:${receiverPort}`;
  const inletConfig = config('inlet');
  inletConfig['http-server-port'] = 0;
  inletConfig['tcp-inlet']!.from = '127.0.0.1:0';
  const setup = /Portal node setup completed successfully/;
  for (const [role, value] of [
    ['outlet', outletConfig],
    ['inlet', inletConfig],
  ] as const) {
    writeFileSync(join(work, `${role}.json`), JSON.stringify(value));
    const nodeArgs = ['node', 'create', '--foreground', '--configuration', join(work, `${role}.json`)];
    await step(
      `start the ${role} node`,
      () =>
        startUntil(
          process.execPath,
          [bundle, ...nodeArgs],
          {
            PORTAL_HOME: join(work, role),
            ENROLLMENT_TICKET: readFileSync(join(work, `${role}.ticket`), 'utf8').trim(),
          },
          setup,
        ),
      () =>
        role === 'outlet'
          ? `outlet node up: relay "webhook" → the receiver on localhost:${receiverPort}`
          : 'inlet node up',
      [
        typed({ PORTAL_HOME: join(work, role), ENROLLMENT_TICKET: { file: join(work, `${role}.ticket`) } }, [
          'portal',
          ...nodeArgs,
        ]),
      ],
    );
  }
  const runtime = JSON.parse(readFileSync(join(work, 'inlet/node/runtime.json'), 'utf8')) as { statusPort: number };
  const shown = (await (await fetch(`http://127.0.0.1:${runtime.statusPort}/show`)).json()) as {
    inlets: { listening: string }[];
  };
  const inletAddress = shown.inlets[0]?.listening ?? '';

  const body = JSON.stringify({ from: hostname() });
  const answer = await step(
    `POST a webhook to the inlet at http://${inletAddress}/webhook`,
    async () => {
      const response = await fetch(`http://${inletAddress}/webhook`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body,
      });
      return `${response.status} ${await response.text()}`;
    },
    (text) => `POST http://${inletAddress}/webhook → ${text}`,
    [
      typed({}, [
        'curl',
        '-sS',
        '-X',
        'POST',
        '-H',
        'Content-Type: application/json',
        '-d',
        body,
        `http://${inletAddress}/webhook`,
      ]),
    ],
  );
  if (!answer.startsWith('200 Webhook received')) throw new Error(`unexpected answer: ${answer}`);
  await new Promise((resolve) => setTimeout(resolve, 100));
  console.log(
    `\nThe receiver on the outlet side logged:\n${receiver.lines
      .slice(1)
      .map((line) => `  ${line}`)
      .join('\n')}`,
  );
  for (const role of ['outlet', 'inlet']) {
    const heading = keep
      ? `$ ${typed({ PORTAL_HOME: join(work, role) }, ['portal', 'node', 'show'])}`
      : `portal node show (${role}):`;
    console.log(
      `\n${heading}\n${portal(join(work, role), ['node', 'show'])
        .trimEnd()
        .split('\n')
        .map((line) => `  ${line}`)
        .join('\n')}`,
    );
  }

  console.log('');
  if (keep) await keepRunning(adminHome, inletAddress, body);
}

/** Seconds between the webhooks of a kept demo: enough for the console's overview to show them move. */
const keptWebhookEveryMs = 5000;

/** With --keep: everything runs on, a webhook now and then, until Ctrl-C (or SIGTERM). */
async function keepRunning(adminHome: string, inletAddress: string, body: string): Promise<void> {
  const link = portal(adminHome, ['console']).trim().split('\n').at(-1) ?? '';
  const again = typed({ PORTAL_HOME: adminHome }, ['portal', 'console']);
  console.log(
    `The demo keeps running. Open its web console (one sign-in, within 10 minutes):\n      ${link}\n` +
      `For another link: $ ${again}\n` +
      `A webhook goes through the inlet every ${keptWebhookEveryMs / 1000} s, so the overview's portal moves. ` +
      'Press Ctrl-C to stop everything (the directory stays).\n',
  );
  const post = () =>
    fetch(`http://${inletAddress}/webhook`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body })
      .then((response) => response.arrayBuffer())
      .catch(() => undefined);
  const timer = setInterval(() => void post(), keptWebhookEveryMs);
  // Kept listening while everything stops: Ctrl-C reaches this process from the terminal and again
  // through npm and tsx, and a second signal must not cut the stopping short.
  await new Promise<void>((resolve) => {
    process.on('SIGINT', resolve);
    process.on('SIGTERM', resolve);
  });
  clearInterval(timer);
  if (tty) process.stdout.write('\n');
}

async function cleanup(): Promise<void> {
  for (const child of children.reverse()) {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
  }
  if (keep) return stopEmbeddedController();
  // The demo's own controller, with the demo's members in it: nobody else's.
  spawnSync(process.execPath, [bundle, 'reset', '--yes', '--delete-controller'], {
    env: { ...process.env, PORTAL_HOME: join(work, 'admin') },
  });
  rmSync(work, { recursive: true, force: true });
}

/** With --keep: the embedded controller stops, its state stays (the next portal project command starts it again). */
async function stopEmbeddedController(): Promise<void> {
  let pid: number;
  try {
    pid = (JSON.parse(readFileSync(join(work, 'admin/controller/runtime.json'), 'utf8')) as { pid: number }).pid;
    process.kill(pid, 'SIGTERM');
  } catch {
    return;
  }
  for (let waited = 0; waited < 10_000; waited += 50) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

let failed = false;
try {
  await main();
} catch {
  failed = true;
} finally {
  await step('stop the nodes, the receiver and the embedded controller', cleanup, () =>
    keep ? `stopped everything and kept ${work}` : 'stopped everything and removed the demo directory',
  );
  if (keep) {
    console.log(
      `\nKept ${work}: each PORTAL_HOME there holds its identity, so the node commands above start the nodes again ` +
        'without a new ticket.',
    );
    // The demo's own controller, with only the demo's members in it.
    const reset = typed({ PORTAL_HOME: join(work, 'admin') }, ['portal', 'reset', '--yes', '--delete-controller']);
    console.log(`Remove it with:\n      $ ${reset} && rm -rf ${shellQuote(work)}`);
  }
}
process.exitCode = failed ? 1 : 0;
