/**
 * The program staged as a release where a systemd unit's sandbox lets it run. `portal service install`
 * rightly refuses a program under /tmp, /var/tmp or /home, and a checkout may live in any of them: a
 * test of the units must not depend on where the checkout is.
 */
import { chmod, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { stageRelease } from '../../scripts/release-stage.mjs';
import { projectRoot } from './usecases.ts';

export interface PlacedBundle {
  /** The staged `dist/portal.mjs`. */
  readonly bundle: string;
  remove(): Promise<void>;
}

/** Stages the release's files under /opt, readable by every user as a service user needs. */
export async function placeBundle(): Promise<PlacedBundle> {
  await mkdir('/opt', { recursive: true });
  const root = await mkdtemp('/opt/portal-test-');
  await chmod(root, 0o755);
  stageRelease(projectRoot, root);
  return {
    bundle: join(root, 'dist', 'portal.mjs'),
    remove: () => rm(root, { recursive: true, force: true }),
  };
}
