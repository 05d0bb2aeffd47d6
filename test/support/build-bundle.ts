/** Mocha global setup: the end-to-end tests run the bundled CLI, so build it fresh first (about a second). */
import { spawnSync } from 'node:child_process';
import { projectRoot } from './usecases.ts';

export function mochaGlobalSetup(): void {
  const result = spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: projectRoot, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`building dist/portal.mjs failed:\n${result.stderr}`);
}
