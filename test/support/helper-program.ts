/**
 * A test's helper program (TypeScript under test/support/) bundled into plain JavaScript once per test
 * process, so that each run of it is a bare Node.js start: under tsx every start compiles its sources
 * again, a second of CPU. The bundle sits under node_modules/.cache, where its dependencies resolve.
 */
import { buildSync } from 'esbuild';
import { mkdirSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { projectRoot } from './usecases.ts';

const built = new Map<string, string>();

/** The runnable .mjs of `source` (relative to the project's root). */
export function helperProgram(source: string): string {
  const known = built.get(source);
  if (known) return known;
  const folder = join(projectRoot, 'node_modules/.cache/portal-test-helpers', String(process.pid));
  if (built.size === 0) {
    mkdirSync(folder, { recursive: true });
    process.once('exit', () => rmSync(folder, { recursive: true, force: true }));
  }
  const outfile = join(folder, `${basename(source, '.ts')}.mjs`);
  buildSync({
    entryPoints: [join(projectRoot, source)],
    outfile,
    bundle: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'warning',
  });
  built.set(source, outfile);
  return outfile;
}
