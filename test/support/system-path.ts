/**
 * The system's programs as a machine without Portal has them: a folder of links to everything in
 * Node.js's folder, /usr/bin and /bin except a `portal` installed there (`npm link` puts one in
 * /usr/bin, or beside Node.js), so that a script run for a fresh machine does not find it.
 */
import { existsSync, mkdirSync, readdirSync, symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';

export const systemFolders = [dirname(process.execPath), '/usr/bin', '/bin'];

/** Makes `folder` (which must not exist) and returns it, ready to stand for /usr/bin:/bin on PATH. */
export function systemPathWithoutPortal(folder: string): string {
  mkdirSync(folder, { recursive: true });
  const linked = new Set<string>(['portal']);
  for (const system of systemFolders.filter(existsSync)) {
    for (const name of readdirSync(system)) {
      if (linked.has(name)) continue;
      linked.add(name);
      symlinkSync(join(system, name), join(folder, name));
    }
  }
  return folder;
}
