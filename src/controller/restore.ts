/**
 * `portal controller restore`'s work: a backup from `portal controller backup` into a new data
 * directory, authenticated and checked before anything is written, and moved into place whole.
 */
import { X509Certificate } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chown, mkdir, mkdtemp, readFile, readdir, rename, rm, rmdir, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { version } from '../node/version.ts';
import type { ChainCursor } from '../shared/audit-verify.ts';
import { auditSignerOf } from '../shared/audit-signature.ts';
import { InputError, RuntimeFailure } from '../shared/errors.ts';
import { readTar, type ArchiveEntry } from './backup-archive.ts';
import { authenticationEntry, verifyArchive } from './backup-authentication.ts';
import {
  backupFiles,
  backupFormat,
  backupFormatVersion,
  opens,
  unauthenticatedFormatVersion,
  unwritable,
  writeAtomically,
  type BackupManifest,
} from './backup.ts';
import {
  keepContinuity,
  readReplacedState,
  type ContinuityOptions,
  type ContinuityReport,
} from './restore-continuity.ts';
import { openStore } from './store/open.ts';
import { KeptSqlite } from './store/sqlite.ts';

export interface RestoreOptions {
  /** The archive portal controller backup wrote. */
  readonly input: string;
  /** A data directory that does not exist yet, or is empty. */
  readonly dataDir: string;
  /** The sealing key: the archive must be authentic under it, and it must open the sealed keys. */
  readonly sealingKey: Buffer;
  /** How the key was given, for messages. */
  readonly sealingKeyName: string;
  /** Restore an archive of a version that did not authenticate backups (a warning is the caller's). */
  readonly acceptUnauthenticated?: boolean;
  /** Keep the backup's tickets usable instead of retiring them. */
  readonly keepTickets?: boolean;
  /** The data directory this restore replaces: its revocations, spent tickets and trail heads are kept. */
  readonly replaces?: string;
  /** Trail heads the operator names when no replaced store can be read (see parsePreviousHead). */
  readonly previousHeads?: ReadonlyMap<string, ChainCursor>;
}

export interface Restored {
  readonly manifest: BackupManifest;
  /** The TLS key as sealed, to check a sealing key against. */
  readonly sealedKey: Buffer;
  /** The embedded controller's settings, when the backup was of one. */
  readonly embeddedSettings?: string;
  /** False for an archive of a version that did not authenticate backups, restored as the operator asked. */
  readonly authenticated: boolean;
  /** What the restore changed so as not to undo what happened since the backup, per project. */
  readonly continuity: readonly ContinuityReport[];
}

/**
 * Unpacks the backup at `input` into `dataDir`, checked first (every byte authentic under the sealing
 * key, then the archive, the store's integrity, the certificate), made to keep what happened since the
 * backup (restore-continuity.ts), and moved into place whole: a refusal leaves no data directory. A
 * data directory with anything in it is never touched. Run
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
  const authenticated = checkAuthentic(archive, options);
  const names = new Set<string>([...Object.values(backupFiles), ...(authenticated ? [authenticationEntry] : [])]);
  const entries = readTar(archive, names, options.input);
  const manifest = checkedManifest(entries, options.input, authenticated);
  if (options.replaces !== undefined && options.previousHeads?.size)
    throw new InputError('BAD_FLAG', '--replaces and --previous-head both name the trail a restore replaces', {
      hint: 'give --replaces when the replaced data directory can be read, else --previous-head',
    });
  const replaced =
    options.replaces === undefined
      ? undefined
      : await readReplacedState(join(resolve(options.replaces), backupFiles.store));
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
  if (!opens(options.sealingKey, sealedKey.content))
    throw new InputError(
      'SEALING_KEY_WRONG',
      `the sealing key ${options.sealingKeyName} does not open the TLS key in ${options.input}`,
      { hint: 'give the key the controller that wrote the backup ran with' },
    );
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
    const continuity = await keepingContinuity(join(staging, backupFiles.store), {
      keepTickets: options.keepTickets ?? false,
      signer: auditSignerOf(options.sealingKey),
      ...(replaced ? { replaced } : {}),
      ...(options.previousHeads ? { previousHeads: options.previousHeads } : {}),
    });
    await giveToOwnerOfParent(staging, dirname(dataDir));
    // Empty (checked above), so rmdir removes nothing else; then the whole directory appears at once.
    if (existsSync(dataDir)) await rmdir(dataDir);
    await rename(staging, dataDir);
    return {
      manifest,
      sealedKey: sealedKey.content,
      authenticated,
      continuity,
      ...(embedded ? { embeddedSettings: embedded.content.toString('utf8') } : {}),
    };
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

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

function checkedManifest(
  entries: ReadonlyMap<string, ArchiveEntry>,
  input: string,
  authenticated: boolean,
): BackupManifest {
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
  // The version an unauthenticated archive claims proves nothing; one that carries a tag must say 2.
  const expected = authenticated ? backupFormatVersion : unauthenticatedFormatVersion;
  if (manifest.version !== expected) {
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
 * Whether the archive is authenticated: refused unless every byte is as the holder of the sealing key
 * wrote it; an archive with no tag only when the operator accepts one.
 */
function checkAuthentic(archive: Buffer, options: RestoreOptions): boolean {
  const verdict = verifyArchive(archive, options.sealingKey);
  if (verdict === 'authentic') return true;
  if (verdict === 'unauthenticated') {
    if (options.acceptUnauthenticated) return false;
    throw new InputError(
      'BACKUP_UNAUTHENTICATED',
      `${options.input} carries no authentication: it was written by an earlier Portal, or stripped of it, ` +
        'and nothing proves that it is unchanged',
      {
        hint:
          'restore a backup this Portal wrote; only if you know that no one else could write where this one was ' +
          'kept, pass --accept-unauthenticated',
      },
    );
  }
  if (verdict === 'wrong-key')
    throw new InputError(
      'SEALING_KEY_WRONG',
      `${options.input} was authenticated under another sealing key than ${options.sealingKeyName}`,
      { hint: 'give the key the controller that wrote the backup ran with (or the backup was changed)' },
    );
  throw new InputError(
    'BACKUP_TAMPERED',
    `${options.input} was changed after it was written: it fails its authentication under ` +
      `the sealing key ${options.sealingKeyName}, so nothing was restored`,
    { hint: 'restore another backup, and find out who could write where this one was kept' },
  );
}

/** Runs keepContinuity on the restored store, closed again before the directory is moved into place. */
async function keepingContinuity(path: string, options: ContinuityOptions): Promise<ContinuityReport[]> {
  const store = await openStore(`sqlite:${path}`);
  try {
    return await keepContinuity(store, options);
  } finally {
    await store.destroy();
  }
}
