/**
 * The configuration a node keeps in its home, `<home>/node/configuration`, and reads again on a
 * reload, when what it was started with cannot be read again: a document given inline (the quick
 * start, the compose files) or a systemd credential, the copy systemd makes at start and never
 * refreshes. `portal node reload --configuration` replaces it; a node started with a file of its own
 * reads that file instead, so the kept copy never hides an operator's edit.
 */
import { chown, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { isAbsolute, join, relative } from 'node:path';
import { credentialsDirectoryVariable } from '../shared/sealing-key.ts';

/** Where the node of `home` keeps the configuration it reloads from when it was given none to read again. */
export const keptConfigurationFile = (home: string): string => join(home, 'node', 'configuration');

/**
 * Whether a configuration read from `file` (none: given inline) is kept in the home: it is when no
 * file could be read again, or the file is a credential of the service manager's, copied at start.
 */
export function keepsConfiguration(file: string | undefined, environment: NodeJS.ProcessEnv): boolean {
  if (file === undefined) return true;
  const credentials = environment[credentialsDirectoryVariable];
  if (!credentials) return false;
  const inside = relative(credentials, file);
  return inside !== '' && !inside.startsWith('..') && !isAbsolute(inside);
}

/**
 * Writes the kept configuration whole or not at all (a reload never reads half a file), readable by its
 * owner alone: a document may carry a ticket. Written by root (systemd's ExecReload=), it is given to
 * the owner of the node's directory, the user the node runs as.
 */
export async function writeKeptConfiguration(home: string, text: string): Promise<void> {
  const file = keptConfigurationFile(home);
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, text, { mode: 0o600 });
  if (process.getuid?.() === 0) {
    const owner = await stat(join(home, 'node'));
    await chown(temporary, owner.uid, owner.gid);
  }
  await rename(temporary, file);
}

/** The kept configuration's text, or undefined when there is none. */
export async function readKeptConfiguration(home: string): Promise<string | undefined> {
  return readFile(keptConfigurationFile(home), 'utf8').catch(() => undefined);
}
