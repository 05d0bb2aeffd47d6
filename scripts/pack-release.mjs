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
import { cpSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import process from 'node:process';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const destination = resolve(process.argv[2] ?? join(root, 'release'));
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const koffiPlatform = `@koromix/koffi-${process.platform}-${process.arch}`;
const nativeModules = ['better-sqlite3', 'bindings', 'file-uri-to-path', 'koffi', koffiPlatform];
/** Run-time files of each bundled module: no sources, no build intermediates, no install scripts' helpers. */
const runtimeFiles = {
  'better-sqlite3': ['package.json', 'LICENSE', 'lib', 'build/Release/better_sqlite3.node'],
  bindings: ['package.json', 'LICENSE.md', 'bindings.js'],
  'file-uri-to-path': ['package.json', 'LICENSE', 'index.js'],
  koffi: ['package.json', 'LICENSE.txt', 'index.cjs', 'src/koffi/index.cjs', 'src/koffi/src/static.cjs'],
  [koffiPlatform]: [
    'package.json',
    'index.js',
    ...(process.platform === 'linux' ? ['linux', 'musl'] : [process.platform]).map((libc) => `${libc}_${process.arch}`),
  ],
};

execFileSync(process.execPath, [join(root, 'scripts/build.mjs')], { stdio: 'inherit' });

const stage = mkdtempSync(join(tmpdir(), 'portal-release-'));
try {
  for (const path of ['dist', 'templates', 'schemas', 'install.sh', 'README.md'])
    cpSync(join(root, path), join(stage, path), { recursive: true });
  const versions = {};
  for (const name of nativeModules) {
    const from = join(root, 'node_modules', name);
    versions[name] = JSON.parse(readFileSync(join(from, 'package.json'), 'utf8')).version;
    for (const path of runtimeFiles[name])
      cpSync(join(from, path), join(stage, 'node_modules', name, path), { recursive: true });
    // npm packs a bundled module's own `files`; the built addon is not among better-sqlite3's.
    const staged = join(stage, 'node_modules', name, 'package.json');
    // koffi's prebuilt libraries for other platforms are optional dependencies: none is fetched.
    const {
      scripts: _scripts,
      devDependencies: _dev,
      optionalDependencies: _optional,
      ...module
    } = JSON.parse(readFileSync(staged, 'utf8'));
    const released = { ...module, files: runtimeFiles[name].filter((path) => path !== 'package.json') };
    writeFileSync(staged, `${JSON.stringify(released, null, 2)}\n`);
  }
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
