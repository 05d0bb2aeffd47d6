/**
 * Opens the controller's store: SQLite (better-sqlite3) by default, or PostgreSQL for controller
 * replicas that share one database. Each driver is loaded only when its store is opened (./sqlite.ts,
 * ./postgres.ts: better-sqlite3 is a native module a node never needs), and the schema is brought up to
 * date under a lock (SQLite's own; PostgreSQL's advisory lock, which Kysely's migrator takes), so
 * replicas that start together migrate once.
 */
import { chmod, open, readFile } from 'node:fs/promises';
import { Kysely, Migrator, SqliteDialect, sql, type MigrationProvider } from 'kysely';
import { InputError } from '../../shared/errors.ts';
import { storeBusyTimeoutMs } from '../limits.ts';
import { migrationsFor, type StoreEngine } from './migrations.ts';
import type { Database } from './schema.ts';
import { openPostgresStore, postgresClient } from './postgres.ts';
import { KeptSqlite } from './sqlite.ts';
import { parseStoreUrl, type PostgresTarget } from './store-url.ts';

export type Store = Kysely<Database>;

const engines = new WeakMap<Store, StoreEngine>();

/** The engine under `store`: what a few statements must be written for (row locks, say). */
export function storeEngine(store: Store): StoreEngine {
  return engines.get(store) ?? 'sqlite';
}

export interface StoreOptions {
  /** A file holding the PostgreSQL user's password (its first line); else PGPASSWORD. */
  readonly passwordFile?: string;
}

export async function openStore(url: string, options: StoreOptions = {}): Promise<Store> {
  const target = parseStoreUrl(url, process.env);
  if (target.kind === 'postgres') return migrated(await openPostgres(target, options), 'postgres');
  return migrated(await openSqlite(target.path), 'sqlite');
}

async function openSqlite(path: string): Promise<Store> {
  await createOwnerOnly(path);
  const database = await KeptSqlite.open(path);
  database.exec(`PRAGMA journal_mode = WAL; PRAGMA busy_timeout = ${storeBusyTimeoutMs}`);
  await keepOwnerOnly(path);
  return new Kysely<Database>({ dialect: new SqliteDialect({ database }) });
}

async function openPostgres(target: PostgresTarget, options: StoreOptions): Promise<Store> {
  const file = options.passwordFile;
  if (file === undefined) return openPostgresStore(target, await postgresClient(target));
  return openPostgresStore(target, await postgresClient(target, { password: await rereadPassword(file) }));
}

/**
 * The password file, read again for every new connection: a password rotated in place (Amazon RDS
 * rotates its managed one every week) is taken without a restart, while the connections open go on.
 * Read once here so that a file that is wrong stops the start; later, a file that cannot be read for a
 * moment leaves the last password in use.
 */
async function rereadPassword(file: string): Promise<() => Promise<string>> {
  let last = await passwordFrom(file);
  return async () => {
    last = await passwordFrom(file).catch(() => last);
    return last;
  };
}

async function passwordFrom(file: string): Promise<string> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new InputError(
      'BAD_FLAG',
      `--store-password-file ${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
      { hint: "name a file that holds the database user's password on its first line" },
    );
  }
  const password = text.split(/\r?\n/, 1)[0] ?? '';
  if (password === '')
    throw new InputError('BAD_FLAG', `--store-password-file ${file} is empty`, {
      hint: "write the database user's password on its first line",
    });
  return password;
}

async function migrated(db: Store, engine: StoreEngine): Promise<Store> {
  const migrations = migrationsFor(engine);
  const newer = await newerSchema(db, Object.keys(migrations));
  if (newer) {
    engines.set(db, engine);
    newerSchemas.set(db, newer);
    return db;
  }
  const provider: MigrationProvider = { getMigrations: () => Promise.resolve(migrations) };
  const { error } = await new Migrator({ db, provider }).migrateToLatest();
  // A replica of a later release that migrated while this one waited for the lock: run on its schema.
  const migratedMeanwhile = error ? await newerSchema(db, Object.keys(migrations)) : undefined;
  if (migratedMeanwhile) {
    engines.set(db, engine);
    newerSchemas.set(db, migratedMeanwhile);
    return db;
  }
  if (error) {
    await db.destroy();
    throw error instanceof Error ? error : new Error(`the store's migration failed: ${JSON.stringify(error)}`);
  }
  engines.set(db, engine);
  return db;
}

/** The migrations a later release ran on a store this version opened, which this version does not know. */
const newerSchemas = new WeakMap<Store, readonly string[]>();

/** What a later release added to `store`'s schema (empty when this version knows it all). */
export const schemaNewerBy = (store: Store): readonly string[] => newerSchemas.get(store) ?? [];

/**
 * During a rolling upgrade a replica of this version may (re)start after one of a later release
 * migrated the store. Migrations only expand the schema, so it runs on it as it is, without migrating:
 * the later migrations' names, or undefined when the store holds none this version does not know.
 * Refused when a later migration contracts the schema (its name says `contract`), or when one this
 * version knows was never run: that store is not a later version of this one's.
 */
async function newerSchema(db: Store, known: readonly string[]): Promise<readonly string[] | undefined> {
  let executed: string[];
  try {
    executed = (await sql<{ name: string }>`select name from kysely_migration`.execute(db)).rows.map((row) => row.name);
  } catch {
    return undefined; // A new store: no migration ran yet.
  }
  const later = executed.filter((name) => !known.includes(name)).sort();
  if (later.length === 0) return undefined;
  const contracting = later.find((name) => /(^|-)contract(-|$)/.test(name));
  const skipped = known.filter((name) => !executed.includes(name));
  if (contracting === undefined && skipped.length === 0) return later;
  await db.destroy();
  throw new InputError(
    'STORE_TOO_NEW',
    contracting
      ? `the store was migrated by a later Portal release (${contracting}), which dropped what this version reads`
      : `the store holds a later release's migrations (${later.join(', ')}) but not this version's ${skipped[0]}`,
    { hint: 'run the release that migrated the store, or a later one (portal --version says which this is)' },
  );
}

/** The store, its write-ahead log and its shared memory: SQLite gives the last two the first's mode. */
const storeFiles = (path: string) => [path, `${path}-wal`, `${path}-shm`];

/**
 * The store holds the project CA's sealed key, ticket hashes and the trail: readable by its owner only,
 * whatever the umask. SQLite creates a new file 0644, so an empty one is made 0600 first (SQLite takes an
 * empty file as a new database), and a store made before is narrowed.
 */
async function createOwnerOnly(path: string): Promise<void> {
  if (path === '' || path === ':memory:' || path.startsWith('file:')) return;
  const handle = await open(path, 'a', 0o600);
  await handle.close();
  await keepOwnerOnly(path);
}

async function keepOwnerOnly(path: string): Promise<void> {
  if (path === '' || path === ':memory:' || path.startsWith('file:')) return;
  for (const file of storeFiles(path)) {
    await chmod(file, 0o600).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error;
    });
  }
}
