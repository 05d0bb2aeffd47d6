// Packs the release tarball install.sh installs: `npm run release [-- DIR]` writes
// DIR/portal-<version>-<platform>-<arch>.tgz (default DIR: release/).
//
// The tarball is an npm package (npm pack of a staged folder) holding the bundled runner, the compiler's
// templates and schemas, install.sh, and the one native module the embedded controller loads
// (better-sqlite3, built for this platform and this Node.js), with only what it needs at run time.
// Nodes never load it. It is platform-specific for that module alone: install.sh checks that it loads
// and rebuilds it for another Node.js. Beside it, koffi and its prebuilt library for this platform,
// through which a node hands glibc's free pages back after a burst (src/shared/malloc-trim.ts); a
// process that cannot load it runs without.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import process from 'node:process';
import { join, resolve } from 'node:path';
import { nativeModules, stageRelease } from './release-stage.mjs';

const root = resolve(import.meta.dirname, '..');
const destination = resolve(process.argv[2] ?? join(root, 'release'));
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

execFileSync(process.execPath, [join(root, 'scripts/build.mjs')], { stdio: 'inherit' });

const stage = mkdtempSync(join(tmpdir(), 'portal-release-'));
try {
  const versions = stageRelease(root, stage);
  // The bundle carries every other dependency; none is installed beside it.
  writeFileSync(
    join(stage, 'package.json'),
    `${JSON.stringify(
      {
        name: manifest.name,
        version: manifest.version,
        description: manifest.description,
        type: 'module',
        engines: manifest.engines,
        bin: { portal: 'dist/portal.mjs' },
        dependencies: versions,
        bundleDependencies: nativeModules,
        portalRelease: { platform: process.platform, arch: process.arch, nodeModulesVersion: process.versions.modules },
      },
      null,
      2,
    )}\n`,
  );
  mkdirSync(destination, { recursive: true });
  const [packed] = JSON.parse(
    execFileSync('npm', ['pack', '--json', '--pack-destination', destination], {
      cwd: stage,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }),
  );
  const name = `${manifest.name}-${manifest.version}-${process.platform}-${process.arch}.tgz`;
  renameSync(join(destination, packed.filename), join(destination, name));
  process.stdout.write(`${join(destination, name)}\n`);
} finally {
  rmSync(stage, { recursive: true, force: true });
}
