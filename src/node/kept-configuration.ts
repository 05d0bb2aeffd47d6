/**
 * The configuration a node keeps in its home, `<home>/node/configuration`, and reads again on a
 * reload, when what it was started with cannot be read again: a document given inline (the quick
 * start, the compose files) or a systemd credential, the copy systemd makes at start and never
 * refreshes. `portal node reload --configuration` replaces it; a node started with a file of its own
 * reads that file instead, so the kept copy never hides an operator's edit.
 */
import { randomBytes } from 'node:crypto';
import { constants, type Stats } from 'node:fs';
import { lstat, open, rename } from 'node:fs/promises';
import { isAbsolute, join, relative } from 'node:path';
import { RuntimeFailure } from '../shared/errors.ts';
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
 * the owner of the node's directory, the user the node runs as; that user owns the directory, so root
 * follows no link in it: the directory must be one, and the file is created new under a random name.
 */
export async function writeKeptConfiguration(home: string, text: string): Promise<void> {
  const directory = await nodeDirectoryOf(home);
  const file = keptConfigurationFile(home);
  const temporary = `${file}.${randomBytes(8).toString('hex')}.tmp`;
  const handle = await open(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | noFollow, 0o600);
  try {
    await handle.writeFile(text);
    if (process.getuid?.() === 0) await handle.chown(directory.uid, directory.gid);
  } finally {
    await handle.close();
  }
  await rename(temporary, file);
}

/** The kept configuration's text, or undefined when there is none (or it is not a plain file). */
export async function readKeptConfiguration(home: string): Promise<string | undefined> {
  const handle = await open(keptConfigurationFile(home), constants.O_RDONLY | noFollow).catch(() => undefined);
  if (!handle) return undefined;
  try {
    return (await handle.stat()).isFile() ? await handle.readFile('utf8') : undefined;
  } finally {
    await handle.close();
  }
}

/** Neither a link nor a pipe the node's user put there makes root read or block on something else. */
const noFollow = constants.O_NOFOLLOW | constants.O_NONBLOCK;

/** The node's directory as it is on disk: a directory, not a link to one elsewhere. */
async function nodeDirectoryOf(home: string): Promise<Stats> {
  const path = join(home, 'node');
  const found = await lstat(path);
  if (!found.isDirectory())
    throw new RuntimeFailure('CONFIGURATION_UNREADABLE', `${path} is not a directory`, {
      hint: "it is the node's own: remove what is there and start the node again",
    });
  return found;
}
