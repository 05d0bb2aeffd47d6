/**
 * A throwaway PostgreSQL cluster for pgbench: initdb under a temporary directory owned by the
 * postgres user (initdb refuses root), the server on a free loopback port with its unix socket in that
 * directory, and `pgbench -i` at the configured scale.
 */
import { execFile, execFileSync } from 'node:child_process';
import { chownSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort, start } from './processes.ts';
import { settings } from './settings.ts';

const run = promisify(execFile);
const database = 'bench';

export interface Postgres {
  readonly port: number;
}

/** A temporary directory for the cluster (the caller removes it, also when the start fails). */
export function postgresDirectory(): string {
  return mkdtempSync(join(tmpdir(), 'portal-bench-pg-'));
}

function postgresUser(): { uid: number; gid: number } {
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

export async function startPostgres(directory: string): Promise<Postgres> {
  const { uid, gid } = postgresUser();
  const data = join(directory, 'data');
  const sockets = join(directory, 'sockets');
  mkdirSync(sockets);
  chownSync(directory, uid, gid);
  chownSync(sockets, uid, gid);
  const bin = (name: string) => join(settings.postgresBin, name);
  execFileSync(bin('initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync'], {
    uid,
    gid,
    cwd: directory,
    stdio: 'ignore',
  });
  const port = await freePort();
  // Commits do not wait for the WAL flush: the benchmark compares tunnels, and on a shared disk the
  // fsync of every TPC-B commit would swamp what a tunnel adds.
  await start(
    bin('postgres'),
    [
      '-D',
      data,
      '-p',
      String(port),
      '-k',
      sockets,
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'synchronous_commit=off',
      '-c',
      'max_connections=100',
    ],
    {
      uid,
      gid,
      ready: /database system is ready to accept connections/,
      // Fast shutdown: backends are ended and the server stops without waiting for clients.
      stopSignal: 'SIGINT',
    },
  );
  execFileSync(bin('createdb'), ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', database], {
    stdio: 'ignore',
  });
  await run(bin('pgbench'), [
    '-i',
    '-q',
    '-s',
    String(settings.pgbenchScale),
    '-h',
    '127.0.0.1',
    '-p',
    String(port),
    '-U',
    'postgres',
    database,
  ]);
  return { port };
}

export interface PgbenchRun {
  readonly selectOnly: boolean;
  readonly clients: number;
}

/** One pgbench run against `port` for the configured seconds; its TPS without connection time. */
export async function pgbench(port: number, how: PgbenchRun): Promise<number> {
  const args = [
    '-h',
    '127.0.0.1',
    '-p',
    String(port),
    '-U',
    'postgres',
    '-c',
    String(how.clients),
    '-j',
    String(Math.min(2, how.clients)),
    '-T',
    String(settings.pgbenchSeconds),
    ...(how.selectOnly ? ['-S'] : []),
    database,
  ];
  const { stdout } = await run(join(settings.postgresBin, 'pgbench'), args, { encoding: 'utf8' });
  const match = /^tps = ([\d.]+)/m.exec(stdout);
  if (!match) throw new Error(`pgbench printed no tps:\n${stdout}`);
  return Number(match[1]);
}
