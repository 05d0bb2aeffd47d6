/**
 * `npm ci` warns EBADENGINE for every locked package whose engines.node does not admit the Node.js it
 * runs on. A checkout must install clean on the minimum package.json declares (and docs/development.md
 * names) and on the Node.js this suite runs on: every range in the lock is held to both.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

// npm's own range reader (hoisted in node_modules by the tools that depend on it).
const semver = createRequire(import.meta.url)('semver') as {
  satisfies(version: string, range: string): boolean;
  minVersion(range: string): { version: string } | null;
};

interface Lock {
  packages: Record<string, { engines?: { node?: string } | string[] }>;
}

describe('package.json engines: npm ci prints no EBADENGINE', () => {
  const root = process.cwd();
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { engines: { node: string } };
  const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as Lock;
  const minimum = semver.minVersion(manifest.engines.node)?.version ?? '';

  for (const [label, version] of [
    ['the declared minimum', minimum],
    ['this Node.js', process.versions.node],
  ] as const) {
    it(`has every locked package admit ${label}`, () => {
      assert.ok(semver.satisfies(version, manifest.engines.node), `${version} is outside ${manifest.engines.node}`);
      const refused = Object.entries(lock.packages).flatMap(([path, entry]) => {
        const range = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
        return range && !semver.satisfies(version, range) ? [`${path}: node ${range}`] : [];
      });
      assert.deepEqual(refused, [], `Node.js ${version}`);
    });
  }
});
