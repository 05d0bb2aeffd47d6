/**
 * What the lanes of one `npm test` make once and share, in the run's folder (PORTAL_TEST_RUN_DIR, set by
 * scripts/test-run.mjs and removed with the run's logs): a PostgreSQL cluster fresh from initdb, the
 * release tarball. An entry is made apart and renamed into place whole, so a lane finds it complete or
 * not at all; two lanes that make it at once both make it, and the first rename wins. Outside a run
 * (mocha alone) nothing is shared and each caller makes its own, as it would without this.
 */
import { existsSync } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/**
 * The shared entry `name`, made by `make` (which returns a path on the same file system, a file or a
 * folder, that becomes the entry) unless a lane made it before; undefined outside a run.
 */
export async function sharedOnce(name: string, make: () => Promise<string>): Promise<string | undefined> {
  const runDir = process.env.PORTAL_TEST_RUN_DIR;
  if (!runDir) return undefined;
  const entry = join(runDir, 'shared', name);
  if (existsSync(entry)) return entry;
  const made = await make();
  await mkdir(dirname(entry), { recursive: true });
  try {
    await rename(made, entry);
  } catch (error) {
    // Another lane's is in place (a folder is not renamed over a folder that holds files): keep that one.
    await rm(made, { recursive: true, force: true });
    if (!existsSync(entry)) throw error;
  }
  return entry;
}
