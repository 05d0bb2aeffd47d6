/**
 * Opens the controller's store: SQLite (better-sqlite3) by default. better-sqlite3 is a native module
 * only the controller needs, so it is loaded lazily (in ./sqlite.ts), and never by a node.
 */
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
  const database = await KeptSqlite.open(url.slice('sqlite:'.length));
  database.exec(`PRAGMA journal_mode = WAL; PRAGMA busy_timeout = ${storeBusyTimeoutMs}`);
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database }) });
  const provider: MigrationProvider = { getMigrations: () => Promise.resolve(migrations) };
  const { error } = await new Migrator({ db, provider }).migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(`the store's migration failed: ${JSON.stringify(error)}`);
  return db;
}
