/**
 * Opens the controller's store: SQLite (better-sqlite3) by default. better-sqlite3 is a native module
 * only the controller needs, so it is loaded lazily (in ./sqlite.ts), and never by a node.
 */
import { chmod, open } from 'node:fs/promises';
import { Kysely, Migrator, SqliteDialect, type MigrationProvider } from 'kysely';
import { InputError } from '../../shared/errors.ts';
import { storeBusyTimeoutMs } from '../limits.ts';
import { migrations } from './migrations.ts';
import type { Database } from './schema.ts';
import { KeptSqlite } from './sqlite.ts';

export type Store = Kysely<Database>;

export async function openStore(url: string): Promise<Store> {
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) {
    throw new InputError(
      'STORE_UNSUPPORTED',
      'the PostgreSQL store is not available in this version of the controller',
      {
        hint: 'use --store sqlite:PATH (the default keeps it in the data directory)',
      },
    );
  }
  if (!url.startsWith('sqlite:')) {
    throw new InputError('STORE_UNSUPPORTED', `unknown store "${url}"`, { hint: 'use --store sqlite:PATH' });
  }
  const path = url.slice('sqlite:'.length);
  await createOwnerOnly(path);
  const database = await KeptSqlite.open(path);
  database.exec(`PRAGMA journal_mode = WAL; PRAGMA busy_timeout = ${storeBusyTimeoutMs}`);
  await keepOwnerOnly(path);
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database }) });
  const provider: MigrationProvider = { getMigrations: () => Promise.resolve(migrations) };
  const { error } = await new Migrator({ db, provider }).migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(`the store's migration failed: ${JSON.stringify(error)}`);
  return db;
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
