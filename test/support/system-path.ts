/**
 * The system's programs as a machine without Portal has them: Node.js's folder, /usr/bin and /bin,
 * or, where a `portal` is installed there (`npm link` puts one in /usr/bin, or beside Node.js), a
 * folder of links to everything in them but that, so that a script run for a fresh machine does not
 * find it.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export const systemFolders = [dirname(process.execPath), '/usr/bin', '/bin'];

let shared: string | undefined;

/** PATH entries that stand for /usr/bin:/bin; made once per test process, removed when it exits. */
export function systemPathWithoutPortal(): string {
  if (shared !== undefined) return shared;
  const present = systemFolders.filter(existsSync);
  if (!present.some((folder) => existsSync(join(folder, 'portal')))) {
    shared = present.join(':');
    return shared;
  }
  const folder = mkdtempSync(join(tmpdir(), 'portal-system-'));
  process.once('exit', () => rmSync(folder, { recursive: true, force: true }));
  linkAllBut(present, folder, 'portal');
  shared = folder;
  return shared;
}

function linkAllBut(folders: readonly string[], into: string, left: string): void {
  mkdirSync(into, { recursive: true });
  const linked = new Set<string>([left]);
  for (const folder of folders) {
    for (const name of readdirSync(folder)) {
      if (linked.has(name)) continue;
      linked.add(name);
      symlinkSync(join(folder, name), join(into, name));
    }
  }
}
