// Bundles the portal CLI into dist/: portal.mjs, which runs with Node.js alone, and dist/chunks/, the
// parts only some commands load (see src/cli/program.ts). dist/ is replaced whole.
import { chmod, readFile, rm, writeFile } from 'node:fs/promises';
import { build } from 'esbuild';

await rm('dist', { recursive: true, force: true });
await build({
  entryPoints: { portal: 'src/cli/main.ts' },
  outdir: 'dist',
  outExtension: { '.js': '.mjs' },
  chunkNames: 'chunks/[name]-[hash]',
  splitting: true,
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  sourcemap: 'linked',
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

await writeFile('dist/portal.mjs', `#!/usr/bin/env node\n${await readFile('dist/portal.mjs', 'utf8')}`);
await chmod('dist/portal.mjs', 0o755);
