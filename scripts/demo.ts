/**
 * `npm start`: the generic webhook use case, end to end on this machine, with the real CLI. Compiles
 * the manifest, enrolls with the embedded controller, issues both tickets with the compiled tickets.sh,
 * starts the compiled webhook receiver, the outlet and the inlet, posts a webhook through the inlet,
 * shows the nodes, and stops everything. Ports are chosen by the system; nothing outside a temporary
 * directory is touched.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir, hostname } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

const root = new URL('..', import.meta.url).pathname;
const bundle = join(root, 'dist/portal.mjs');
const work = mkdtempSync(join(tmpdir(), 'portal-demo-'));
const children: ChildProcess[] = [];
const tty = process.stdout.isTTY;

/** One step of the list: a spinner while it runs on a terminal, then ✔ or ✖ with what it found. */
async function step<T>(title: string, run: () => Promise<T> | T, done: (value: T) => string = () => title): Promise<T> {
  const frames = '⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏';
  let frame = 0;
  const spinner = tty ? setInterval(() => process.stdout.write(`\r  ${frames[frame++ % frames.length]} ${title}…`), 80) : undefined;
  if (!tty) process.stdout.write(`  … ${title}\n`);
  try {
    const value = await run();
    clearInterval(spinner);
    process.stdout.write(`${tty ? '\r\x1b[2K' : ''}  ✔ ${done(value)}\n`);
    return value;
  } catch (error) {
    clearInterval(spinner);
    process.stdout.write(`${tty ? '\r\x1b[2K' : ''}  ✖ ${title}: ${(error as Error).message}\n`);
    throw error;
  }
}

function portal(home: string, args: string[]): string {
  const result = spawnSync(process.execPath, [bundle, ...args], { env: { ...process.env, PORTAL_HOME: home }, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(result.stderr.trim() || `portal ${args.join(' ')} failed`);
  return result.stdout;
}

/** Starts a process and resolves with the first output line matching `ready`. */
function startUntil(command: string, args: string[], env: NodeJS.ProcessEnv, ready: RegExp): Promise<{ child: ChildProcess; line: string; lines: string[] }> {
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  const lines: string[] = [];
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no "${ready.source}" within 30 s:\n${lines.join('\n')}`)), 30_000);
    for (const stream of [child.stdout, child.stderr]) {
      createInterface({ input: stream! }).on('line', (line) => {
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

  await step('compile usecases/webhook.yaml', () => portal(adminHome, ['compile', join(root, 'usecases/webhook.yaml'), '--out', out]), () => `compiled usecases/webhook.yaml into ${join(out, 'webhook')}`);

  const bin = join(work, 'bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'portal'), `#!/bin/sh\nexec '${process.execPath}' '${bundle}' "$@"\n`);
  chmodSync(join(bin, 'portal'), 0o755);
  await step(
    'enroll with the embedded controller and issue the two tickets (tickets.sh)',
    () => {
      const result = spawnSync('bash', [join(out, 'webhook/tickets.sh')], { cwd: work, env: { ...process.env, PATH: `${bin}:${process.env.PATH}`, PORTAL_HOME: adminHome }, encoding: 'utf8' });
      if (result.status !== 0) throw new Error(result.stderr.trim());
      return JSON.parse(portal(adminHome, ['project', 'show'])) as { id: string; controller: string };
    },
    (project) => `enrolled: project ${project.id} on the embedded controller ${project.controller}; wrote outlet.ticket and inlet.ticket`,
  );

  const receiver = await step(
    'start the compiled webhook receiver',
    () => startUntil('python3', [join(out, 'webhook/webhook_receiver.py'), '--port', '0'], {}, /listening on/),
    (started) => `webhook receiver: ${started.line}`,
  );
  const receiverPort = Number(/:(\d+)$/.exec(receiver.line)?.[1]);

  const config = (role: string) => JSON.parse(readFileSync(join(out, `webhook/${role}.json`), 'utf8'));
  const outletConfig = config('outlet');
  outletConfig['http-server-port'] = 0;
  outletConfig['tcp-outlet'].to = `localhost:${receiverPort}`;
  const inletConfig = config('inlet');
  inletConfig['http-server-port'] = 0;
  inletConfig['tcp-inlet'].from = '127.0.0.1:0';
  const setup = /Portal node setup completed successfully/;
  for (const [role, value] of [['outlet', outletConfig], ['inlet', inletConfig]] as const) {
    writeFileSync(join(work, `${role}.json`), JSON.stringify(value));
    await step(`start the ${role} node`, () =>
      startUntil(process.execPath, [bundle, 'node', 'create', '--foreground', '--configuration', join(work, `${role}.json`)], {
        PORTAL_HOME: join(work, role),
        ENROLLMENT_TICKET: readFileSync(join(work, `${role}.ticket`), 'utf8').trim(),
      }, setup),
      () => (role === 'outlet' ? `outlet node up: relay "webhook" → the receiver on localhost:${receiverPort}` : 'inlet node up'),
    );
  }
  const runtime = JSON.parse(readFileSync(join(work, 'inlet/node/runtime.json'), 'utf8')) as { statusPort: number };
  const shown = (await (await fetch(`http://127.0.0.1:${runtime.statusPort}/show`)).json()) as { inlets: { listening: string }[] };
  const inletAddress = shown.inlets[0]?.listening ?? '';

  const answer = await step(`POST a webhook to the inlet at http://${inletAddress}/webhook`, async () => {
    const response = await fetch(`http://${inletAddress}/webhook`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ from: hostname() }) });
    return `${response.status} ${await response.text()}`;
  }, (text) => `POST http://${inletAddress}/webhook → ${text}`);
  if (!answer.startsWith('200 Webhook received')) throw new Error(`unexpected answer: ${answer}`);
  await new Promise((resolve) => setTimeout(resolve, 100));
  console.log(`\nThe receiver on the outlet side logged:\n${receiver.lines.slice(1).map((line) => `  ${line}`).join('\n')}`);
  for (const role of ['outlet', 'inlet']) {
    console.log(`\nportal node show (${role}):\n${portal(join(work, role), ['node', 'show']).trimEnd().split('\n').map((line) => `  ${line}`).join('\n')}`);
  }
  console.log('');
}

async function cleanup(): Promise<void> {
  for (const child of children.reverse()) {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
  }
  spawnSync(process.execPath, [bundle, 'reset', '--yes'], { env: { ...process.env, PORTAL_HOME: join(work, 'admin') } });
  rmSync(work, { recursive: true, force: true });
}

let failed = false;
try {
  await main();
} catch {
  failed = true;
} finally {
  await step('stop the nodes, the receiver and the embedded controller', cleanup, () => 'stopped everything and removed the demo directory');
}
process.exitCode = failed ? 1 : 0;
