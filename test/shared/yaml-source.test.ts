/** YAML sources refuse what would exhaust the parser's stack, at its place, before parsing. */
import assert from 'node:assert/strict';
import { maxFlowDepth, parseYamlSource } from '../../src/shared/yaml-source.ts';

describe('YAML sources (src/shared/yaml-source.ts)', () => {
  it(`refuses [ ] and { } nested deeper than ${maxFlowDepth} at the first bracket too deep`, () => {
    for (const open of ['[', '{', '[{']) {
      const source = parseYamlSource('deep.yaml', `usecase: x\ntitle: ${open.repeat(10_000)}\n`);
      assert.equal(source.value, undefined);
      assert.deepEqual(source.syntaxProblems, [
        {
          file: 'deep.yaml',
          line: 2,
          column: 'title: '.length + maxFlowDepth + 1,
          pointer: '',
          message: `not valid YAML here: lists and maps nest more than ${maxFlowDepth} deep in [ ] or { }`,
        },
      ]);
      assert.deepEqual(source.locate('/title'), { line: 2, column: 'title: '.length + maxFlowDepth + 1 });
    }
  });

  it('reads nesting up to the bound, and counts no bracket inside quotes or comments', () => {
    const nested = `${'['.repeat(maxFlowDepth)}1${']'.repeat(maxFlowDepth)}`;
    const source = parseYamlSource('ok.yaml', `a: ${nested}\nb: "${'['.repeat(500)}"\n# ${'{'.repeat(500)}\n`);
    assert.deepEqual(source.syntaxProblems, []);
    let depth = 0;
    for (let value = (source.value as { a: unknown }).a; Array.isArray(value); value = value[0] as unknown) depth += 1;
    assert.equal(depth, maxFlowDepth);
    assert.equal((source.value as { b: string }).b, '['.repeat(500));
  });
});
