import assert from 'node:assert/strict';
import fc from 'fast-check';
import { compileUseCase } from '../../src/compile/compile.ts';
import { parseManifest } from '../../src/compile/manifest.ts';
import type { UseCaseManifest } from '../../src/shared/types/manifest.ts';
import { allUseCases, loadManifest } from '../support/usecases.ts';
import { assertTypedRejection, fuzz, timed } from './fuzz.ts';
import { edited, rendered, yamlText } from './yaml-text.ts';

const file = 'usecase.yaml';
const bundled = fc.constantFrom(...allUseCases).map((usecase) => loadManifest(usecase));

/** Parses; a rejection must be the project's located ValidationError. Returns undefined when refused. */
function parsed(text: string): UseCaseManifest | undefined {
  try {
    return timed(2000, () => parseManifest(file, text));
  } catch (error) {
    assertTypedRejection(error, file);
    return undefined;
  }
}

/** An accepted manifest is plain data no bigger than its text allows, and compiles or is refused as bad input. */
function assertCompiles(manifest: UseCaseManifest, text: string): void {
  const json = JSON.stringify(manifest);
  assert.deepEqual(JSON.parse(json), manifest, 'plain JSON data (no Map, Set, Date or binary from YAML tags)');
  assert.ok(json.length <= 8 * text.length + 256, `${json.length} characters of manifest from ${text.length} of text`);
  let artifacts;
  try {
    artifacts = timed(5000, () => compileUseCase(manifest));
  } catch (error) {
    // A limit of a target format (a CloudFormation length, say) is bad input, refused before writing.
    assertTypedRejection(error, file);
    return;
  }
  assert.ok(artifacts.length > 0, 'some output');
  for (const artifact of artifacts) {
    assert.match(artifact.path, /^[A-Za-z0-9._/-]+$/, 'an output path inside the use case folder');
    assert.ok(!artifact.path.split('/').includes('..'), artifact.path);
    assert.equal(typeof artifact.content, 'string', artifact.path);
  }
}

describe('fuzz: use-case manifests (parseManifest, then compileUseCase)', () => {
  it('accepts a manifest or refuses it with located problems, for any YAML text', async () => {
    await fuzz(
      'manifest, any text',
      fc.property(yamlText(), (text) => {
        const manifest = parsed(text);
        if (manifest) assertCompiles(manifest, text);
      }),
      200,
    );
  });

  it('compiles or refuses as bad input the bundled manifests edited anywhere (hostile strings included)', async () => {
    await fuzz(
      'manifest, edited',
      fc.property(
        bundled.chain((manifest) => edited(manifest)).chain((data) => rendered(data)),
        (text) => {
          const manifest = parsed(text);
          if (manifest) assertCompiles(manifest, text);
        },
      ),
      40,
    );
  });

  it('reads back every bundled manifest written as YAML, flow YAML or JSON', async () => {
    await fuzz(
      'manifest round trip',
      fc.property(
        bundled.chain((manifest) => fc.tuple(fc.constant(manifest), rendered(manifest))),
        ([manifest, text]) => {
          assert.deepEqual(parseManifest(file, text), manifest);
        },
      ),
      20,
    );
  });
});
