/**
 * Backing up a controller's data directory, running or not, and restoring it into a new one.
 *
 * A backup is one tar archive (src/controller/backup-archive.ts), 0600: a consistent copy of the SQLite
 * store made with SQLite's online backup while the controller goes on writing, the TLS certificate
 * that every ticket and node pins, its key (sealed), the embedded controller's settings when there are
 * some, and backup.json, which says what it holds. It never holds the sealing key: the project CA keys
 * and the TLS key in it are sealed, and the key stays apart (src/shared/sealing-key.ts), so a stolen
 * backup opens nothing. Every byte of it is authenticated under a key derived from the sealing key
 * (backup-authentication.ts), so one who can write where backups are kept cannot change one unseen.
 * Restoring (restore.ts) needs the archive, the same sealing key, and the same public address, which
 * every ticket and node names.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, open, readFile, rename, rm } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { version } from '../node/version.ts';
import { UnsealError, unseal } from '../pki/seal.ts';
import { InputError, RuntimeFailure } from '../shared/errors.ts';
import { serverCertificateFiles } from '../shared/sealed-server-certificate.ts';
import { readSealingKey, type SealingKeySource } from '../shared/sealing-key.ts';
import type { ArchiveEntry } from './backup-archive.ts';
import { authenticatedTar } from './backup-authentication.ts';
import { shownUrl } from './store/store-url.ts';
import { KeptSqlite } from './store/sqlite.ts';

/** The files of a backup, by their names in the archive and in a data directory. */
export const backupFiles = {
  manifest: 'backup.json',
  store: 'controller.db',
  certificate: serverCertificateFiles.certificate,
  sealedKey: serverCertificateFiles.sealedKey,
  /** The embedded controller's listening and public addresses (src/cli/embedded-controller.ts). */
  embeddedSettings: 'embedded.json',
} as const;

export const backupFormat = 'portal-controller-backup';
/** 2: authenticated (backup-authentication.ts); 1: not, read only when the operator accepts that. */
export const backupFormatVersion = 2;
export const unauthenticatedFormatVersion = 1;

/** What backup.json says. */
export interface BackupManifest {
  readonly format: typeof backupFormat;
  readonly version: typeof backupFormatVersion | typeof unauthenticatedFormatVersion;
  /** The Portal version that wrote it. */
  readonly portal: string;
  readonly created_at: string;
  /** The data directory it was taken from. */
  readonly data_dir: string;
  readonly projects: number;
  readonly members: number;
}

export interface BackupOptions {
  readonly dataDir: string;
  /** @default "sqlite:<dataDir>/controller.db" */
  readonly store?: string;
  /** The archive to write (replaced whole, atomically, if it exists). */
  readonly output: string;
  /** The controller's sealing key: it must open the sealed TLS key; the archive is authenticated under it. */
  readonly sealingKey: Buffer;
  /** How the key was given, for messages. */
  readonly sealingKeyName: string;
}

/** Writes the backup of the controller data in `dataDir` to `output`; what it holds. */
export async function backupController(options: BackupOptions): Promise<BackupManifest> {
  const storePath = sqlitePath(options.store ?? `sqlite:${join(options.dataDir, backupFiles.store)}`);
  if (!existsSync(storePath)) {
    throw new InputError('NO_CONTROLLER_DATA', `there is no controller store at ${storePath}`, {
      hint:
        'give --data-dir the directory the controller was started with (default: $PORTAL_HOME/controller), ' +
        'and --store if it was given one',
    });
  }
  const [certificate, sealedKey, embedded] = await Promise.all([
    requiredFile(options.dataDir, backupFiles.certificate),
    requiredFile(options.dataDir, backupFiles.sealedKey),
    readFile(join(options.dataDir, backupFiles.embeddedSettings)).catch(() => undefined),
  ]);
  // A backup authenticated under another key would be refused at the restore that needs it.
  if (!opens(options.sealingKey, sealedKey))
    throw new InputError(
      'SEALING_KEY_WRONG',
      `the sealing key ${options.sealingKeyName} does not open ${join(options.dataDir, backupFiles.sealedKey)}, ` +
        'so it cannot authenticate a backup of this controller',
      { hint: 'give the key this controller runs with (--sealing-key-file, or as portal controller start finds it)' },
    );
  const output = resolve(options.output);
  const scratch = await mkdtemp(join(dirname(output), '.portal-backup-')).catch((error: NodeJS.ErrnoException) => {
    throw unwritable(output, error);
  });
  try {
    const copy = join(scratch, backupFiles.store);
    // Not read-only: as the last connection to close, this one removes the write-ahead log files it
    // made when the controller is stopped (it writes nothing). SQLite gives files that root makes the
    // owner of the store, so a backup as root leaves nothing the controller cannot open.
    const source = await KeptSqlite.open(storePath, { fileMustExist: true });
    try {
      await source.backup(copy);
    } catch (error) {
      throw new RuntimeFailure('BACKUP_FAILED', `cannot back up ${storePath}: ${(error as Error).message}`, {
        hint: 'check that this user may read the data directory, and try again',
      });
    } finally {
      source.close();
    }
    const counts = await selfContained(copy, storePath);
    const manifest: BackupManifest = {
      format: backupFormat,
      version: backupFormatVersion,
      portal: version,
      created_at: new Date().toISOString(),
      data_dir: resolve(options.dataDir),
      ...counts,
    };
    const entries: ArchiveEntry[] = [
      { name: backupFiles.manifest, mode: 0o600, content: Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`) },
      { name: backupFiles.store, mode: 0o600, content: await readFile(copy) },
      { name: backupFiles.certificate, mode: 0o644, content: certificate },
      { name: backupFiles.sealedKey, mode: 0o600, content: sealedKey },
      ...(embedded ? [{ name: backupFiles.embeddedSettings, mode: 0o600, content: embedded }] : []),
    ];
    await writeAtomically(output, authenticatedTar(entries, options.sealingKey), scratch).catch(
      (error: NodeJS.ErrnoException) => {
        throw unwritable(output, error);
      },
    );
    return manifest;
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/** "1 project, 3 members": what a backup holds, for messages. */
export function counted(manifest: Pick<BackupManifest, 'projects' | 'members'>): string {
  const some = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;
  return `${some(manifest.projects, 'project')}, ${some(manifest.members, 'member')}`;
}

/** Whether the key from `source` opens the sealed TLS key of a backup. */
export type SealingKeyCheck = 'opens' | 'missing' | 'unreadable' | 'wrong';

export async function checkSealingKey(source: SealingKeySource, sealedKey: Buffer): Promise<SealingKeyCheck> {
  let key: Buffer | undefined;
  try {
    key = await readSealingKey(source, () => undefined);
  } catch {
    return 'unreadable';
  }
  if (!key) return 'missing';
  return opens(key, sealedKey) ? 'opens' : 'wrong';
}

/** Whether `key` opens the sealed TLS key `sealedKey`. */
export function opens(key: Buffer, sealedKey: Buffer): boolean {
  try {
    unseal(key, sealedKey);
    return true;
  } catch (error) {
    if (error instanceof UnsealError) return false;
    throw error;
  }
}

/** The sealed TLS key in `dataDir`, for checking a sealing key against it. */
export const readSealedKey = (dataDir: string) => requiredFile(dataDir, backupFiles.sealedKey);

export function unwritable(path: string, error: NodeJS.ErrnoException): RuntimeFailure {
  return new RuntimeFailure('BACKUP_UNWRITABLE', `cannot write ${path} (${error.code ?? error.message})`, {
    hint: 'give a path in a directory this user may write',
  });
}

function sqlitePath(store: string): string {
  if (!store.startsWith('sqlite:'))
    throw new InputError(
      'STORE_UNSUPPORTED',
      `only SQLite stores can be backed up, and ${shownUrl(store)} is not one`,
      {
        hint: "back a PostgreSQL store up with PostgreSQL's own tools (pg_dump, or its base backups and WAL archive)",
      },
    );
  return store.slice('sqlite:'.length);
}

async function requiredFile(dataDir: string, name: string): Promise<Buffer> {
  try {
    return await readFile(join(dataDir, name));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') {
      throw new InputError(
        'NO_CONTROLLER_DATA',
        `${dataDir} holds no ${name}: it is not the data directory of a controller that has started`,
        {
          hint: 'give --data-dir the directory the controller was started with (default: $PORTAL_HOME/controller)',
        },
      );
    }
    throw new RuntimeFailure(
      'BACKUP_FAILED',
      `cannot read ${join(dataDir, name)} (${code ?? (error as Error).message})`,
      { hint: 'run the backup as the user the controller runs as, or as root' },
    );
  }
}

/**
 * Makes the copy of the store one self-contained file (a rollback journal instead of the controller's
 * write-ahead log, which it sets again when it opens the store), and counts its projects and members;
 * a file that is not a controller's store is refused.
 */
async function selfContained(path: string, shownAs: string): Promise<{ projects: number; members: number }> {
  const database = await KeptSqlite.open(path, { fileMustExist: true });
  try {
    database.exec('PRAGMA journal_mode = DELETE');
    const count = (table: string) => database.all<{ n: number }>(`SELECT count(*) AS n FROM ${table}`)[0]?.n ?? 0;
    return { projects: count('projects'), members: count('members') };
  } catch (error) {
    throw new InputError('NO_CONTROLLER_DATA', `${shownAs} is not a controller's store (${(error as Error).message})`, {
      hint: 'give --data-dir the directory the controller was started with',
    });
  } finally {
    database.close();
  }
}

/**
 * Writes `content` beside `path` (in `scratch`), flushes it, and renames it into place, so a reader never
 * sees half a file.
 */
export async function writeAtomically(path: string, content: Buffer, scratch: string, mode = 0o600): Promise<void> {
  const temporary = join(scratch, `.${basename(path)}.${process.pid}.tmp`);
  const file = await open(temporary, 'wx', mode);
  try {
    await file.writeFile(content);
    await file.chmod(mode);
    await file.sync();
  } finally {
    await file.close();
  }
  await rename(temporary, path);
}
