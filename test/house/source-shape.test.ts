import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { importCircles, lineCount, maxSourceLines, relativeImports } from '../support/source-shape.ts';
import { projectRoot } from '../support/usecases.ts';

/** Every file under `folder` of the repository, as paths relative to it. */
function filesUnder(folder: string): string[] {
  return readdirSync(join(projectRoot, folder), { recursive: true })
    .map((path) => join(folder, String(path)))
    .filter((path) => statSync(join(projectRoot, path)).isFile())
    .sort();
}

const read = (path: string) => readFileSync(join(projectRoot, path), 'utf8');

describe('the shape of the source: no import circles under src/, no file over 400 lines', () => {
  it('finds no circle of imports among the modules under src/, type-only imports included', () => {
    const modules = filesUnder('src').filter((path) => path.endsWith('.ts'));
    assert.ok(modules.length > 100, `read ${modules.length} modules under src/`);
    const graph = new Map(modules.map((path) => [path, relativeImports(path, read(path))] as const));
    const circles = importCircles(graph).map((circle) => circle.join(' -> '));
    assert.deepEqual(
      circles,
      [],
      'modules that import each other, if only for a type: move what both need into a module of its own ' +
        'that both import (as src/compile/rule-types.ts and src/node/types.ts are)',
    );
  });

  it(`holds every file under src/ and scripts/ to ${maxSourceLines} lines`, () => {
    // What scripts/generate-types.ts writes from the schemas is not read or edited by hand.
    const generated = (path: string) => read(path).startsWith('/* Generated from the JSON Schema');
    const files = [...filesUnder('src'), ...filesUnder('scripts')].filter((path) => !generated(path));
    assert.ok(files.length > 100, `read ${files.length} files`);
    const long = files
      .map((path) => `${path}: ${lineCount(read(path))} lines`)
      .filter((line) => Number(/: (\d+) lines$/.exec(line)?.[1]) > maxSourceLines);
    assert.deepEqual(long, [], `split each by concept into files of at most ${maxSourceLines} lines`);
  });

  it('reads type-only imports, re-exports and import() as imports, and ignores packages and absolute paths', () => {
    const text = [
      "import type { Rule } from './rules.ts';",
      "import { type Soundness } from '../soundness.ts';",
      "export * from './protocol/e2e.ts';",
      "export type { RelayShow } from './types.ts';",
      "const later = await import('./later.ts');",
      "import ts from 'typescript';",
      "import { join } from 'node:path';",
    ].join('\n');
    assert.deepEqual(relativeImports('src/compile/rules/names.ts', text), [
      'src/compile/rules/rules.ts',
      'src/compile/soundness.ts',
      'src/compile/rules/protocol/e2e.ts',
      'src/compile/rules/types.ts',
      'src/compile/rules/later.ts',
    ]);
  });

  it('names each circle as the path round it: a type-only pair, a longer ring, a module importing itself', () => {
    const graph = new Map<string, string[]>([
      ['a.ts', ['b.ts', 'package.json']],
      ['b.ts', ['a.ts']],
      ['c.ts', ['d.ts']],
      ['d.ts', ['e.ts', 'a.ts']],
      ['e.ts', ['c.ts']],
      ['f.ts', ['f.ts']],
      ['g.ts', ['a.ts', 'c.ts']],
    ]);
    const circles = importCircles(graph).sort((one, other) => String(one[0]).localeCompare(String(other[0])));
    assert.deepEqual(circles, [
      ['a.ts', 'b.ts', 'a.ts'],
      ['c.ts', 'd.ts', 'e.ts', 'c.ts'],
      ['f.ts', 'f.ts'],
    ]);
    assert.deepEqual(
      importCircles(
        new Map([
          ['a.ts', ['b.ts']],
          ['b.ts', []],
        ]),
      ),
      [],
      'a chain is no circle',
    );
  });

  it('counts lines as wc -l does, and a last line without its newline', () => {
    assert.deepEqual(['', 'one\n', 'one\ntwo', 'one\ntwo\n'].map(lineCount), [0, 1, 2, 2]);
  });
});
