import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { generatedFiles, renderTypes, renderValidator } from '../../scripts/generate-types.ts';
import { projectRoot } from '../support/usecases.ts';

describe('what the schemas generate', () => {
  for (const { schema, types, validator } of generatedFiles) {
    for (const [output, render] of [
      [types, renderTypes],
      [validator, renderValidator],
    ] as const) {
      it(`${output} is what ${schema} generates (npm run types)`, async () => {
        const [committed, rendered] = await Promise.all([
          readFile(join(projectRoot, output), 'utf8'),
          render(join(projectRoot, schema)),
        ]);
        assert.equal(committed, rendered, `${output} is stale: run npm run types and commit it`);
      });
    }
  }
});
