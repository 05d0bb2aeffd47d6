/**
 * A SQLite store retired by `portal controller migrate-store`: `<store>.moved` says where it moved (the
 * PostgreSQL URL, which never holds a password), when, and the TLS fingerprint the replicas answer with.
 * No controller starts on a store with that file, and it is not moved a second time, so that an old copy
 * of the projects never serves again by mistake; removing the file is going back to the store on purpose.
 */
import { open, readFile, rename, rm } from 'node:fs/promises';
import { resolve } from 'node:path';
import { InputError, printable } from '../../shared/errors.ts';

/** What `<store>.moved` says. */
export interface MovedMarker {
  /** The PostgreSQL store it moved to, as --store takes it. */
  readonly to: string;
  /** ISO 8601. */
  readonly movedAt: string;
  /** The controller's TLS certificate, which the replicas serve. */
  readonly fingerprint: string;
}

export const movedMarkerFile = (storePath: string): string => `${storePath}.moved`;

/** Writes the marker whole (aside, flushed, then renamed), so that a crash leaves either none or all of it. */
export async function writeMovedMarker(storePath: string, marker: MovedMarker): Promise<string> {
  const file = movedMarkerFile(storePath);
  const aside = `${file}.tmp`;
  const handle = await open(aside, 'w', 0o600);
  try {
    await handle.writeFile(`${JSON.stringify(marker, null, 2)}\n`);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(aside, file);
  return resolve(file);
}

/** Takes the marker back: the move it records did not hold. */
export async function removeMovedMarker(storePath: string): Promise<void> {
  await rm(movedMarkerFile(storePath), { force: true });
}

/**
 * The marker of a store that moved, or undefined. A file that cannot be read as one (edited by hand)
 * still retires the store, with what it does not say shown as unknown.
 */
export async function readMovedMarker(storePath: string): Promise<MovedMarker | undefined> {
  let text: string;
  try {
    text = await readFile(movedMarkerFile(storePath), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    text = '';
  }
  let parsed: Partial<Record<keyof MovedMarker, unknown>> = {};
  try {
    parsed = JSON.parse(text) as typeof parsed;
  } catch {
    // Unreadable: moved all the same.
  }
  const field = (value: unknown) => (typeof value === 'string' && value !== '' ? printable(value) : 'unknown');
  return { to: field(parsed.to), movedAt: field(parsed.movedAt), fingerprint: field(parsed.fingerprint) };
}

/** The one-line refusal for a store that moved: where to, and how to go back on purpose. */
export function storeMovedError(storePath: string, marker: MovedMarker): InputError {
  const file = resolve(movedMarkerFile(storePath));
  return new InputError(
    'STORE_MOVED',
    `the SQLite store ${resolve(storePath)} moved to ${marker.to} on ${marker.movedAt} ` +
      '(portal controller migrate-store)',
    {
      hint:
        `start the controller replicas with --store ${marker.to}; ` +
        `to go back to this store on purpose, remove ${file}`,
    },
  );
}

/** Refuses a store that moved. */
export async function refuseMovedStore(storePath: string): Promise<void> {
  const marker = await readMovedMarker(storePath);
  if (marker) throw storeMovedError(storePath, marker);
}
