/**
 * The README's quick start, run as written: its commands are read from the README, each "machine" of
 * it is a home directory of its own on this one, and only what cannot be the same on loopback changes
 * (the controller's name becomes 127.0.0.1, each port a free one, and the database a real PostgreSQL).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { copyFile, mkdir, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, portalOnPath, start, type Running } from '../support/processes.ts';
import { startPostgres, type Postgres } from '../support/postgres.ts';
import { projectRoot } from '../support/usecases.ts';

interface Machine {
  readonly title: string;
  readonly commands: string[];
}

/** The quick start's shell block, as machines (its numbered comments) and their commands (continuations joined). */
export function quickStartOf(readme: string): Machine[] {
  const section = readme.slice(readme.indexOf('## Quick start'));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1];
  if (!block) throw new Error('the README has no quick start block');
  const machines: Machine[] = [];
  for (const line of block.replace(/\\\n\s*/g, '').split('\n')) {
    const heading = /^# \d\. (.*)$/.exec(line);
    if (heading) machines.push({ title: heading[1] as string, commands: [] });
    else if (line.trim() !== '' && !line.startsWith('#')) machines.at(-1)?.commands.push(line.replace(/\s+# .*$/, ''));
  }
  return machines;
}

/** Runs `script` with bash as a user of `home`, resolving with its output; fails on a non-zero exit. */
async function bash(script: string, home: string, env: NodeJS.ProcessEnv): Promise<{ stdout: string; stderr: string }> {
  const child = spawn('bash', ['-euo', 'pipefail', '-c', script], {
    cwd: home,
    env: { ...env, HOME: home },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  assert.equal(code, 0, `${script}\nfailed with ${code}:\n${stdout}${stderr}`);
  return { stdout, stderr };
}

describe('the README quick start, as written, across three homes on loopback', function () {
  this.timeout(120_000);
  let dir: string;
  let postgres: Postgres;
  const running: Running[] = [];

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'portal-quick-start-'));
    postgres = await startPostgres();
  });

  after(async () => {
    for (const node of running) await node.stop();
    await postgres?.stop();
    const admin = join(dir, 'admin');
    await bash('portal reset --yes', admin, {
      ...process.env,
      PATH: `${await portalOnPath(dir)}:${process.env.PATH}`,
    }).catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  });

  it('enrolls, issues private tickets, runs both nodes, shows UP and answers psql; both stop on Ctrl-C', async () => {
    const machines = quickStartOf(await readFile(join(projectRoot, 'README.md'), 'utf8'));
    assert.deepEqual(
      machines.map((machine) => machine.title.split(',')[0]),
      [
        "On the administrator's machine",
        "On the database's machine (it needs outbound network only):",
        "On the clients' machine",
      ],
    );
    const ports = new Map<string, number>([['5432', postgres.port]]);
    for (const port of ['4000', '15432', '23345', '23346']) ports.set(port, await freePort());
    const onLoopback = (command: string) =>
      command
        .replaceAll('admin.example.net', '127.0.0.1')
        .replace(/\b(4000|5432|15432|23345|23346)\b/g, (port) => String(ports.get(port)));
    const path = `${await portalOnPath(dir)}:${process.env.PATH}`;
    const homes = ['admin', 'database', 'clients'].map((name) => join(dir, name));
    for (const home of homes) await mkdir(home);
    const env = { ...process.env, NODE_DEVELOPER: undefined, PORTAL_HOME: undefined, PATH: path };
    const [admin, database, clients] = homes as [string, string, string];
    const [first, second, third] = machines as [Machine, Machine, Machine];

    // 1. The administrator: one shell, so that umask holds for the tickets.
    await bash(first.commands.map(onLoopback).join('\n'), admin, env);
    for (const ticket of ['outlet.ticket', 'inlet.ticket'])
      assert.equal((await stat(join(admin, ticket))).mode & 0o777, 0o600, `${ticket} is readable by its owner only`);
    await copyFile(join(admin, 'outlet.ticket'), join(database, 'outlet.ticket'));
    await copyFile(join(admin, 'inlet.ticket'), join(clients, 'inlet.ticket'));

    // 2. and 3. Each node runs in the foreground, in a terminal of its own.
    const foreground = (home: string, command: string) => {
      const node = start('bash', ['-c', `exec ${onLoopback(command)}`], { env: { ...env, HOME: home }, cwd: home });
      running.push(node);
      return node;
    };
    assert.equal(second.commands.length, 1);
    const outlet = foreground(database, second.commands[0] as string);
    const [create, ...checks] = third.commands;
    const inlet = foreground(clients, create as string);
    await Promise.all([
      outlet.waitFor(/Portal node setup completed successfully/, 30_000),
      inlet.waitFor(/Portal node setup completed successfully/, 30_000),
    ]);
    const shown = await bash(onLoopback(checks[0] as string), clients, env);
    assert.match(shown.stdout, /^The node is UP\n/);
    const answer = await bash(onLoopback(checks[1] as string), clients, {
      ...postgres.clientEnvironment(),
      ...env,
      PGHOST: undefined,
      PGPORT: undefined,
    });
    assert.match(answer.stdout, /^\s*\?column\?\s*\n-+\n\s*1\n/);

    for (const node of [inlet, outlet]) {
      const exited = once(node.child, 'exit');
      node.child.kill('SIGINT');
      assert.deepEqual(await exited, [0, null]);
      assert.match(node.lines.at(-1) ?? '', /the node stopped on SIGINT after/);
    }
  });
});
