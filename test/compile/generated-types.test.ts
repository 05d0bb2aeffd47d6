import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { renderTypes } from '../../scripts/generate-types.ts';
import { projectRoot } from '../support/usecases.ts';

describe('generated types', () => {
  for (const [schema, output] of [
    ['schemas/manifest.schema.json', 'src/shared/types/manifest.ts'],
    ['schemas/node-config.schema.json', 'src/shared/types/node-config.ts'],
  ] as const) {
    it(`${output} is what ${schema} generates (npm run types)`, async () => {
      const [committed, rendered] = await Promise.all([
        readFile(join(projectRoot, output), 'utf8'),
        renderTypes(join(projectRoot, schema)),
      ]);
      assert.equal(committed, rendered, `${output} is stale: run npm run types and commit it`);
    });
  }
});
