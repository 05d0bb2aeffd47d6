/**
 * Backing up a controller's data directory, running or not, and restoring it into a new one.
 *
 * A backup is one tar archive (src/controller/backup-archive.ts), 0600: a consistent copy of the SQLite
 * store made with SQLite's online backup while the controller goes on writing, the TLS certificate
 * that every ticket and node pins, its key (sealed), the embedded controller's settings when there are
 * some, and backup.json, which says what it holds. It never holds the sealing key: the project CA keys
 * and the TLS key in it are sealed, and the key stays apart (src/shared/sealing-key.ts), so a stolen
 * backup opens nothing. Restoring needs the archive, the same sealing key, and the same public
 * address, which every ticket and node names.
 */
import { X509Certificate } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chown, mkdir, mkdtemp, open, readFile, readdir, rename, rm, rmdir, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { version } from '../node/version.ts';
import { UnsealError, unseal } from '../pki/seal.ts';
import { InputError, RuntimeFailure } from '../shared/errors.ts';
import { serverCertificateFiles } from '../shared/sealed-server-certificate.ts';
import { readSealingKey, type SealingKeySource } from '../shared/sealing-key.ts';
import { readTar, writeTar, type ArchiveEntry } from './backup-archive.ts';
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

const backupFormat = 'portal-controller-backup';
const backupFormatVersion = 1;

/** What backup.json says. */
export interface BackupManifest {
  readonly format: typeof backupFormat;
  readonly version: typeof backupFormatVersion;
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
    await writeAtomically(output, writeTar(entries), scratch).catch((error: NodeJS.ErrnoException) => {
      throw unwritable(output, error);
    });
    return manifest;
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

export interface RestoreOptions {
  /** The archive portal controller backup wrote. */
  readonly input: string;
  /** A data directory that does not exist yet, or is empty. */
  readonly dataDir: string;
}

export interface Restored {
  readonly manifest: BackupManifest;
  /** The TLS key as sealed, to check a sealing key against. */
  readonly sealedKey: Buffer;
  /** The embedded controller's settings, when the backup was of one. */
  readonly embeddedSettings?: string;
}

/**
 * Unpacks the backup at `input` into `dataDir`, checked first (the archive, the store's integrity, the
 * certificate) and moved into place whole. A data directory with anything in it is never touched. Run
 * as root, the restored files belong to the owner of the directory that holds `dataDir`.
 */
export async function restoreController(options: RestoreOptions): Promise<Restored> {
  const dataDir = resolve(options.dataDir);
  const present = await readdir(dataDir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [];
    throw new RuntimeFailure('DATA_DIR_UNREADABLE', `cannot read ${dataDir} (${error.code ?? error.message})`, {
      hint: 'give a directory this user may read and write',
    });
  });
  if (present.length > 0) {
    present.sort();
    throw new InputError(
      'DATA_DIR_NOT_EMPTY',
      `${dataDir} is not empty (it holds ${present.slice(0, 3).join(', ')}${present.length > 3 ? ', …' : ''}): ` +
        `a restore never overwrites a controller's data`,
      {
        hint: 'give --data-dir a new directory, or move this one away first',
      },
    );
  }
  let archive: Buffer;
  try {
    archive = await readFile(options.input);
  } catch (error) {
    throw new InputError(
      'BACKUP_UNREADABLE',
      `cannot read ${options.input} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
      {
        hint: 'give the file portal controller backup wrote',
      },
    );
  }
  const entries = readTar(archive, new Set<string>(Object.values(backupFiles)), options.input);
  const manifest = checkedManifest(entries, options.input);
  const [store, certificate, sealedKey] = [backupFiles.store, backupFiles.certificate, backupFiles.sealedKey].map(
    (name) => {
      const entry = entries.get(name);
      if (!entry)
        throw new InputError('BACKUP_INVALID', `${options.input} lacks ${name}`, {
          hint: 'give a file that portal controller backup wrote, whole',
        });
      return entry;
    },
  ) as [ArchiveEntry, ArchiveEntry, ArchiveEntry];
  try {
    new X509Certificate(certificate.content);
  } catch {
    throw new InputError('BACKUP_INVALID', `${options.input}: its ${certificate.name} is not a certificate`, {
      hint: 'give a file that portal controller backup wrote, whole',
    });
  }
  const staging = await mkdir(dirname(dataDir), { recursive: true })
    .then(() => mkdtemp(join(dirname(dataDir), `.${basename(dataDir)}.restoring-`)))
    .catch((error: NodeJS.ErrnoException) => {
      throw unwritable(dataDir, error);
    });
  try {
    const embedded = entries.get(backupFiles.embeddedSettings);
    for (const entry of [store, certificate, sealedKey, ...(embedded ? [embedded] : [])]) {
      await writeAtomically(
        join(staging, entry.name),
        entry.content,
        staging,
        entry.name === backupFiles.certificate ? 0o644 : 0o600,
      );
    }
    await checkStore(join(staging, backupFiles.store), options.input);
    await giveToOwnerOfParent(staging, dirname(dataDir));
    // Empty (checked above), so rmdir removes nothing else; then the whole directory appears at once.
    if (existsSync(dataDir)) await rmdir(dataDir);
    await rename(staging, dataDir);
    return {
      manifest,
      sealedKey: sealedKey.content,
      ...(embedded ? { embeddedSettings: embedded.content.toString('utf8') } : {}),
    };
  } finally {
    await rm(staging, { recursive: true, force: true });
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
  try {
    unseal(key, sealedKey);
    return 'opens';
  } catch (error) {
    if (error instanceof UnsealError) return 'wrong';
    throw error;
  }
}

/** The sealed TLS key in `dataDir`, for checking a sealing key against it. */
export const readSealedKey = (dataDir: string) => requiredFile(dataDir, backupFiles.sealedKey);

/**
 * Root restoring into a directory that belongs to the service's user (a systemd StateDirectory=) gives
 * that user the restored files, so the controller can open them: as SQLite does with the files root
 * makes beside a store.
 */
async function giveToOwnerOfParent(directory: string, parent: string): Promise<void> {
  if (process.getuid?.() !== 0) return;
  const owner = await stat(parent);
  if (owner.uid === 0) return;
  for (const name of ['', ...(await readdir(directory))]) await chown(join(directory, name), owner.uid, owner.gid);
}

function unwritable(path: string, error: NodeJS.ErrnoException): RuntimeFailure {
  return new RuntimeFailure('BACKUP_UNWRITABLE', `cannot write ${path} (${error.code ?? error.message})`, {
    hint: 'give a path in a directory this user may write',
  });
}

function sqlitePath(store: string): string {
  if (!store.startsWith('sqlite:'))
    throw new InputError('STORE_UNSUPPORTED', `only SQLite stores can be backed up, and ${store} is not one`, {
      hint: 'give --store sqlite:PATH',
    });
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

async function checkStore(path: string, input: string): Promise<void> {
  const database = await KeptSqlite.open(path, { readonly: true, fileMustExist: true });
  try {
    const verdict = database.all<{ integrity_check: string }>('PRAGMA integrity_check')[0]?.integrity_check;
    if (verdict !== 'ok')
      throw new InputError('BACKUP_INVALID', `the store in ${input} is damaged: ${verdict}`, {
        hint: 'restore an earlier backup',
      });
    database.all('SELECT count(*) FROM projects');
  } catch (error) {
    if (error instanceof InputError) throw error;
    throw new InputError(
      'BACKUP_INVALID',
      `the store in ${input} is not a controller's store (${(error as Error).message})`,
      { hint: 'give a file that portal controller backup wrote, whole' },
    );
  } finally {
    database.close();
  }
}

function checkedManifest(entries: ReadonlyMap<string, ArchiveEntry>, input: string): BackupManifest {
  const refuse = (why: string) =>
    new InputError('BACKUP_INVALID', `${input} is not a Portal controller backup: ${why}`, {
      hint: 'give a file that portal controller backup wrote, whole',
    });
  const text = entries.get(backupFiles.manifest)?.content.toString('utf8');
  if (text === undefined) throw refuse(`it holds no ${backupFiles.manifest}`);
  let manifest: Partial<BackupManifest>;
  try {
    manifest = JSON.parse(text) as Partial<BackupManifest>;
  } catch {
    throw refuse(`its ${backupFiles.manifest} is not JSON`);
  }
  if (manifest.format !== backupFormat) throw refuse(`its ${backupFiles.manifest} names no ${backupFormat}`);
  if (manifest.version !== backupFormatVersion) {
    throw new InputError(
      'BACKUP_VERSION',
      `${input} is a backup of format ${String(manifest.version)}, ` +
        `and this Portal (${version}) reads format ${backupFormatVersion}`,
      {
        hint: `restore it with the Portal version that wrote it (${String(manifest.portal)}) or a later one`,
      },
    );
  }
  return manifest as BackupManifest;
}

/**
 * Writes `content` beside `path` (in `scratch`), flushes it, and renames it into place, so a reader never
 * sees half a file.
 */
async function writeAtomically(path: string, content: Buffer, scratch: string, mode = 0o600): Promise<void> {
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
