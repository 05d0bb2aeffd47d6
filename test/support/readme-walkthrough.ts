/**
 * The README's quick start and the walkthroughs that continue it (docs/operating.md), run as written:
 * their commands are read from the documents, each "machine" of them is a home directory of its own on
 * this one, and only what cannot be the same on loopback changes (the controller's name becomes 127.0.0.1, each port a
 * free one, and the database a real PostgreSQL).
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { copyFile, mkdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { freePort, portalOnPath, runToEnd, start, type Running } from './processes.ts';
import type { Postgres } from './postgres.ts';
import { projectRoot } from './usecases.ts';

export interface Step {
  readonly title: string;
  readonly commands: string[];
}

/**
 * The first shell block after `heading`, as its numbered steps ("# 1. …" comments) and their commands:
 * continuations joined, comment lines and trailing comments left out.
 */
export function stepsOf(document: string, heading: string): Step[] {
  const at = document.indexOf(heading);
  if (at < 0) throw new Error(`the document has no section "${heading}"`);
  const block = /```sh\n([\s\S]*?)```/.exec(document.slice(at))?.[1];
  if (!block) throw new Error(`the section "${heading}" has no shell block`);
  const steps: Step[] = [];
  for (const line of block.replace(/\\\n\s*/g, '').split('\n')) {
    const numbered = /^# \d\. (.*)$/.exec(line);
    if (numbered) steps.push({ title: numbered[1] as string, commands: [] });
    else if (line.trim() !== '' && !line.startsWith('#')) steps.at(-1)?.commands.push(line.replace(/\s+# .*$/, ''));
  }
  return steps;
}

export const readReadme = () => readFile(join(projectRoot, 'README.md'), 'utf8');

/** The operations guide, whose walkthrough continues the README's quick start. */
export const readOperatingGuide = () => readFile(join(projectRoot, 'docs/operating.md'), 'utf8');

/** Runs `script` with bash as a user of `home`, resolving with its output; fails on a non-zero exit. */
export async function bash(
  script: string,
  home: string,
  env: NodeJS.ProcessEnv,
): Promise<{ stdout: string; stderr: string }> {
  const { code, stdout, stderr } = await runToEnd('bash', ['-euo', 'pipefail', '-c', script], {
    cwd: home,
    env: { ...env, HOME: home },
  });
  assert.equal(code, 0, `${script}\nfailed with ${code}:\n${stdout}${stderr}`);
  return { stdout, stderr };
}

/** The quick start's project, running: three homes, both nodes in the foreground, and how to run more. */
export interface QuickStart {
  readonly homes: { readonly admin: string; readonly database: string; readonly clients: string };
  readonly outlet: Running;
  readonly inlet: Running;
  /** PATH with the bundled `portal` first, and no PORTAL_HOME. */
  readonly env: NodeJS.ProcessEnv;
  /** What psql needs to reach the test's PostgreSQL as the README's user would (host and port from the command). */
  readonly psqlEnv: NodeJS.ProcessEnv;
  /** A README command with its names and ports made the ones of this machine. */
  readonly onLoopback: (command: string) => string;
  /** Runs a command the README runs in a terminal of its own, in `home`, until the test stops it. */
  readonly foreground: (home: string, command: string) => Running;
  /** The quick start's own commands, by step. */
  readonly steps: Step[];
}

/** The ports the README's commands name, each made a free one on this machine (5432: the test's PostgreSQL). */
const readmePorts = ['4000', '15432', '23345', '23346', '23347'];

/**
 * Runs the quick start's steps 1 to 3 in three homes under `dir`, up to both nodes set up; every
 * process started is added to `running`, for the test to stop.
 */
export async function startQuickStart(dir: string, postgres: Postgres, running: Running[]): Promise<QuickStart> {
  const steps = stepsOf(await readReadme(), '## Quick start');
  const ports = new Map<string, number>([['5432', postgres.port]]);
  for (const port of readmePorts) ports.set(port, await freePort());
  const portPattern = new RegExp(`\\b(${[...ports.keys()].join('|')})\\b`, 'g');
  const onLoopback = (command: string) =>
    command.replaceAll('admin.example.net', '127.0.0.1').replace(portPattern, (port) => String(ports.get(port)));
  const path = `${await portalOnPath(dir)}:${process.env.PATH}`;
  const [admin, database, clients] = ['admin', 'database', 'clients'].map((name) => join(dir, name)) as [
    string,
    string,
    string,
  ];
  for (const home of [admin, database, clients]) await mkdir(home);
  const env = { ...process.env, NODE_DEVELOPER: undefined, PORTAL_HOME: undefined, PATH: path };
  const psqlEnv = { ...postgres.clientEnvironment(), ...env, PGHOST: undefined, PGPORT: undefined };
  const [first, second, third] = steps as [Step, Step, Step];

  // 1. The administrator: one shell, so that umask holds for the tickets.
  await bash(first.commands.map(onLoopback).join('\n'), admin, env);
  for (const ticket of ['outlet.ticket', 'inlet.ticket'])
    assert.equal((await stat(join(admin, ticket))).mode & 0o777, 0o600, `${ticket} is readable by its owner only`);
  await copyFile(join(admin, 'outlet.ticket'), join(database, 'outlet.ticket'));
  await copyFile(join(admin, 'inlet.ticket'), join(clients, 'inlet.ticket'));

  // 2. and 3. Each node runs in the foreground, in a terminal of its own.
  const foreground = (home: string, command: string) => {
    // A leading VARIABLE=value (with ~ for the user's home) is the process's environment.
    const assignment = /^([A-Z_]+)=(\S+) (.*)$/.exec(onLoopback(command));
    const words = assignment ? (assignment[3] as string) : onLoopback(command);
    const own = assignment ? { [assignment[1] as string]: (assignment[2] as string).replace(/^~/, home) } : {};
    const node = start('bash', ['-c', `exec ${words}`], { env: { ...env, HOME: home, ...own }, cwd: home });
    running.push(node);
    return node;
  };
  assert.equal(second.commands.length, 1);
  const outlet = foreground(database, second.commands[0] as string);
  const inlet = foreground(clients, third.commands[0] as string);
  await Promise.all([
    outlet.waitFor(/Portal node setup completed successfully/, 30_000),
    inlet.waitFor(/Portal node setup completed successfully/, 30_000),
  ]);
  return { homes: { admin, database, clients }, outlet, inlet, env, psqlEnv, onLoopback, foreground, steps };
}

/** Stops what the administrator's `portal enroll` started under `dir` (its embedded controller), if anything. */
export async function resetAdministrator(dir: string): Promise<void> {
  const env = { ...process.env, NODE_DEVELOPER: undefined, PATH: `${await portalOnPath(dir)}:${process.env.PATH}` };
  await bash('portal reset --yes --delete-controller', join(dir, 'admin'), env).catch(() => undefined);
}

/** Stops a foreground node as Ctrl-C does; resolves once it exited cleanly. */
export async function interrupt(node: Running): Promise<void> {
  const exited = once(node.child, 'exit');
  node.child.kill('SIGINT');
  assert.deepEqual(await exited, [0, null]);
  assert.match(node.lines.at(-1) ?? '', /the node stopped on SIGINT after/);
}
