// What a release holds, staged into a folder: the bundled runner, the compiler's templates and schemas,
// install.sh, and the native modules the bundle leaves out, with only their run-time files.
// scripts/pack-release.mjs packs it; tests that need the program outside the checkout (a systemd unit's
// sandbox hides /tmp and /home) stage it where they need it.
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import process from 'node:process';

const koffiPlatform = `@koromix/koffi-${process.platform}-${process.arch}`;
export const nativeModules = ['better-sqlite3', 'bindings', 'file-uri-to-path', 'koffi', koffiPlatform];
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

/** Copies the release's files from the built checkout at `root` into `stage`; returns the native modules' versions. */
export function stageRelease(root, stage) {
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
  return versions;
}
