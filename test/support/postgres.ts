/**
 * A real PostgreSQL server for tests, in a temporary directory, on loopback. PostgreSQL will not run as
 * root, so as root it runs as the postgres user. It cannot take port 0, so it gets a port that was
 * free a moment ago.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, start, type Running } from './processes.ts';
import { sharedOnce } from './run-cache.ts';

export interface Postgres {
  readonly port: number;
  readonly user: string;
  readonly password: string;
  readonly database: string;
  /**
   * This process's environment plus the libpq variables that take psql to this database through `port` (an
   * inlet's, or its own).
   */
  clientEnvironment(port?: number): NodeJS.ProcessEnv;
  /** Stops the server, keeping its data: the database is down until resume(). */
  pause(): Promise<void>;
  /** Starts the server again on the same port and data. */
  resume(): Promise<void>;
  /** A new empty database owned by `user` (a plain lower-case name). */
  createDatabase(name: string): void;
  /** Stops the server as a crash does (pg_ctl stop -m immediate): no checkpoint, nothing flushed. */
  crash(): Promise<void>;
  /** Runs statements as the superuser over the server's socket; what psql printed (unaligned, tuples only). */
  asSuperuser(...statements: string[]): string;
  /** The folder of its socket, where a standby's base backup is taken from. */
  readonly socketDir: string;
  stop(): Promise<void>;
}

/** A streaming standby of a primary: read-only until promoted. */
export interface Standby extends Postgres {
  /** Makes it the primary (pg_ctl promote), as an operator or a failover manager does. */
  promote(): void;
}

const [user, password, database] = ['app', 'portal-test-secret', 'appdb'];

export function postgresBinaries(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
  const found = versions.map((version) => join(root, version, 'bin')).find((bin) => existsSync(join(bin, 'initdb')));
  if (!found)
    throw new Error('PostgreSQL server binaries are not installed (Debian package postgresql); .ci/run installs them');
  return found;
}

const asRoot = process.getuid?.() === 0;
/** `command args` as the postgres user when this process is root (PostgreSQL will not run as root). */
const as = (command: string, args: string[]): [string, string[]] =>
  asRoot ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];

/** A folder under the temporary folder that the postgres user may write in. */
async function postgresFolder(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  await chmod(dir, 0o755);
  if (asRoot) execFileSync('chown', ['postgres', dir]);
  return dir;
}

/** A new cluster in `data`, as initdb makes it. */
function initdb(bin: string, data: string): void {
  execFileSync(
    ...as(join(bin, 'initdb'), [
      '-D',
      data,
      '-U',
      'postgres',
      '--auth-local=trust',
      '--auth-host=scram-sha-256',
      '-E',
      'UTF8',
    ]),
    { stdio: 'ignore' },
  );
}

/**
 * A new cluster in `data`: in a test run, a copy of the one cluster initdb made for the run (initdb costs
 * a second of CPU here, a copy a tenth); alone, initdb's own.
 */
async function newCluster(bin: string, data: string): Promise<void> {
  const template = await sharedOnce('postgres-cluster', async () => {
    const staging = await postgresFolder('portal-pg-template-');
    initdb(bin, join(staging, 'data'));
    return staging;
  });
  if (template) execFileSync('cp', ['-a', join(template, 'data'), data]);
  else initdb(bin, data);
}

export async function startPostgres(): Promise<Postgres> {
  const bin = postgresBinaries();
  const dir = await postgresFolder('portal-pg-');
  const data = join(dir, 'data');
  await newCluster(bin, data);
  const server = await launch(bin, dir, data, []);
  server.asSuperuser(`CREATE ROLE ${user} LOGIN PASSWORD '${password}'`, `CREATE DATABASE ${database} OWNER ${user}`);
  return server;
}

/**
 * A streaming standby of `primary` (a base backup of it, on a port of its own), made synchronous: from
 * then on the primary acknowledges a commit only once the standby has it.
 */
export async function startStandby(primary: Postgres): Promise<Standby> {
  const bin = postgresBinaries();
  const dir = await postgresFolder('portal-pg-standby-');
  const data = join(dir, 'data');
  // -R: the backup starts as a standby of the primary; over the socket, as the superuser (trust).
  const source = ['-h', primary.socketDir, '-p', String(primary.port), '-U', 'postgres'];
  execFileSync(...as(join(bin, 'pg_basebackup'), [...source, '-D', data, '-R', '-X', 'stream', '-c', 'fast']), {
    stdio: 'ignore',
  });
  // Its walreceiver names itself by cluster_name: the name synchronous_standby_names waits for.
  const standby = await launch(bin, dir, data, ['cluster_name=standby1']);
  primary.asSuperuser("ALTER SYSTEM SET synchronous_standby_names TO 'standby1'", 'SELECT pg_reload_conf()');
  for (let waited = 0; primary.asSuperuser('SELECT sync_state FROM pg_stat_replication') !== 'sync'; waited += 50) {
    if (waited > 30_000) throw new Error('the standby did not become synchronous');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    ...standby,
    promote: () => execFileSync(...as(join(bin, 'pg_ctl'), ['promote', '-w', '-D', data]), { stdio: 'ignore' }),
  };
}

/** A server on a free port, started on `data` (in `dir`, its socket folder) with `settings` (NAME=VALUE each). */
async function launch(bin: string, dir: string, data: string, settings: readonly string[]): Promise<Postgres> {
  /** The server on `port`, ready; undefined when it did not start (the port was taken meanwhile). */
  const serve = async (on: number): Promise<Running | undefined> => {
    const candidate = start(
      ...as(join(bin, 'postgres'), [
        '-D',
        data,
        '-p',
        String(on),
        '-k',
        dir,
        '-c',
        'listen_addresses=127.0.0.1',
        '-c',
        'max_connections=200',
        ...settings.flatMap((setting) => ['-c', setting]),
      ]),
    );
    try {
      await candidate.waitFor(/database system is ready to accept (read-only )?connections/, 30_000);
      return candidate;
    } catch {
      await candidate.stop();
      return undefined;
    }
  };
  let server: Running | undefined;
  let port = 0;
  for (let attempt = 0; attempt < 5 && !server; attempt += 1) {
    port = await freePort();
    server = await serve(port);
  }
  if (!server) throw new Error('PostgreSQL did not start');
  const asSuperuser = (...statements: string[]) =>
    execFileSync(
      ...as('psql', [
        '-h',
        dir,
        '-p',
        String(port),
        '-U',
        'postgres',
        '-v',
        'ON_ERROR_STOP=1',
        '-At',
        ...statements.flatMap((statement) => ['-c', statement]),
      ]),
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] },
    ).trim();
  let running: Running | undefined = server;
  return {
    port,
    user,
    password,
    database,
    socketDir: dir,
    asSuperuser,
    createDatabase(name) {
      if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`not a plain database name: ${name}`);
      asSuperuser(`CREATE DATABASE ${name} OWNER ${user}`);
    },
    clientEnvironment: (through = port) => ({
      ...process.env,
      PGHOST: '127.0.0.1',
      PGPORT: String(through),
      PGUSER: user,
      PGPASSWORD: password,
      PGDATABASE: database,
    }),
    async pause() {
      await running?.stop();
      running = undefined;
    },
    async resume() {
      running ??= await serve(port);
      if (!running) throw new Error(`PostgreSQL did not start again on port ${port}`);
    },
    async crash() {
      execFileSync(...as(join(bin, 'pg_ctl'), ['stop', '-m', 'immediate', '-D', data]), { stdio: 'ignore' });
      await running?.ended();
      running = undefined;
    },
    async stop() {
      await running?.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
