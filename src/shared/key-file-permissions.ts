/**
 * A key file that other users may read is a key they may copy, and one they may write is a key they
 * may swap. Portal writes its key files 0600, but an operator may copy one in, or a backup restore it,
 * with looser permissions. Portal still uses such a file (stopping a node over what a warning can fix
 * would turn a risk into an outage) and says so once per file and process, naming the fix.
 */
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { shellQuote } from '../compile/quote.ts';
import { printable } from './errors.ts';

/** Where a warning goes: the caller's logger. */
export type Warn = (line: string) => void;

/** Read, write and execute for the group and for others: anyone but the owner. */
const notOwnerBits = 0o077;

/** For callers without a logger: one WARN line on stderr, as the node's and the controller's logs write it. */
export const warnOnStderr: Warn = (line) => process.stderr.write(`${new Date().toISOString()} WARN ${line}\n`);

/** Files warned about in this process, by absolute path. */
const warned = new Set<string>();

/**
 * Warns, once per file and process, when users other than the owner may read or write the key file
 * at `path` (`what` names it: "the sealing key file"). Silent when the file is gone (its reader says
 * so) and on Windows, whose permissions mode bits do not describe.
 */
export async function warnIfKeyFileOpen(path: string, what: string, warn: Warn = warnOnStderr): Promise<void> {
  const absolute = resolve(path);
  if (process.platform === 'win32' || warned.has(absolute)) return;
  const mode = await stat(absolute).then(
    (found) => found.mode & 0o777,
    () => undefined,
  );
  if (mode === undefined || (mode & notOwnerBits) === 0) return;
  warned.add(absolute);
  const octal = mode.toString(8).padStart(4, '0');
  warn(
    printable(
      `${what} ${path} may be read or changed by users other than its owner (mode ${octal}); ` +
        `run chmod 600 ${shellQuote(path)}`,
    ),
  );
}
