// Bundles the portal CLI into dist/: portal.mjs, which runs with Node.js alone, and dist/chunks/, the
// parts only some commands load (see src/cli/program.ts).
//
// Programs may be running from dist/ while it is built again (the tests run `npm run release`, which
// builds): a file whose content is unchanged is left alone, a changed one is replaced by a rename (never
// rewritten in place), and only files the new build does not make are removed.
import { Buffer } from 'node:buffer';
import { mkdir, readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import process from 'node:process';
import { build } from 'esbuild';

const dist = resolve('dist');

const result = await build({
  entryPoints: { portal: 'src/cli/main.ts' },
  outdir: dist,
  outExtension: { '.js': '.mjs' },
  chunkNames: 'chunks/[name]-[hash]',
  splitting: true,
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  sourcemap: 'linked',
  write: false,
  banner: {
    // Bundled CommonJS dependencies call require(); give them one.
    js:
      "import { createRequire as __portalCreateRequire } from 'node:module';\n" +
      'const require = __portalCreateRequire(import.meta.url);',
  },
  // Native, and needed by the controller only: loaded from node_modules when a controller starts.
  external: ['better-sqlite3', 'koffi'],
  logLevel: 'warning',
});

// The web console's one script, for the browser: served by the controller from dist/console/.
const browser = await build({
  entryPoints: { console: 'src/controller/console/browser/console.ts' },
  outdir: join(dist, 'console'),
  bundle: true,
  platform: 'browser',
  target: 'es2020',
  format: 'iife',
  minify: true,
  write: false,
  logLevel: 'warning',
});

const entry = join(dist, 'portal.mjs');
const made = new Set();
for (const output of [...result.outputFiles, ...browser.outputFiles]) {
  const contents =
    output.path === entry ? Buffer.concat([Buffer.from('#!/usr/bin/env node\n'), output.contents]) : output.contents;
  made.add(output.path);
  await replaceIfChanged(output.path, contents, output.path === entry ? 0o755 : 0o644);
}
for (const path of await filesUnder(dist)) if (!made.has(path)) await rm(path, { force: true });

async function replaceIfChanged(path, contents, mode) {
  const current = await readFile(path).catch(() => undefined);
  if (current?.equals(contents)) return;
  await mkdir(dirname(path), { recursive: true });
  const staged = `${path}.${process.pid}.tmp`;
  await writeFile(staged, contents, { mode });
  await rename(staged, path);
}

async function filesUnder(folder) {
  const entries = await readdir(folder, { withFileTypes: true, recursive: true }).catch(() => []);
  return entries.filter((item) => item.isFile()).map((item) => join(item.parentPath ?? item.path, item.name));
}
