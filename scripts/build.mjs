// Bundles the portal CLI into one file, dist/portal.mjs, that runs with Node.js alone.
import { chmod } from 'node:fs/promises';
import { build } from 'esbuild';

await build({
  entryPoints: ['src/cli/main.ts'],
  outfile: 'dist/portal.mjs',
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  sourcemap: 'linked',
  banner: {
    // Bundled CommonJS dependencies call require(); give them one.
    js:
      '#!/usr/bin/env node\n' +
      "import { createRequire as __portalCreateRequire } from 'node:module';\n" +
      'const require = __portalCreateRequire(import.meta.url);',
  },
  // Native, and needed by the controller only: loaded from node_modules when a controller starts.
  external: ['better-sqlite3', 'koffi'],
  logLevel: 'warning',
});

await chmod('dist/portal.mjs', 0o755);
