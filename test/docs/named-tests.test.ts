import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { declaredTitles, namedTests, titleMatches, type NamedTest } from '../support/named-tests.ts';

const root = process.cwd();
/** The documents whose every guarantee names its test (STYLE.md rule 25). */
const provedDocuments = ['docs/security.md', 'docs/revocation.md', 'docs/ports.md'];
const convention = 'names the test that performs it';

function documents(): string[] {
  const docs = readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`);
  return ['README.md', ...docs.sort()];
}

/** What is wrong with each reference of one document: a file or a title test/ does not have. */
function brokenReferences(document: string, named: readonly NamedTest[]): string[] {
  const problems: string[] = [];
  for (const reference of named) {
    const where = `${document}:${reference.line}`;
    const path = join(root, reference.file);
    if (!existsSync(path)) {
      problems.push(`${where}: ${reference.file} does not exist`);
      continue;
    }
    // A file named without a title (a whole suite) only has to exist.
    if (reference.title === '') continue;
    const titles = declaredTitles(readFileSync(path, 'utf8'));
    if (!titles.some((declared) => titleMatches(declared, reference.title)))
      problems.push(`${where}: ${reference.file} has no test titled "${reference.title}"`);
  }
  return problems;
}

describe('documents: every test a document names exists in test/', () => {
  it('finds each named file and title in README.md and docs/*.md', () => {
    const problems = documents().flatMap((document) =>
      brokenReferences(document, namedTests(readFileSync(join(root, document), 'utf8'))),
    );
    assert.deepEqual(problems, []);
  });

  it('has the security and revocation documents state the convention and name their tests', () => {
    for (const document of provedDocuments) {
      const text = readFileSync(join(root, document), 'utf8');
      assert.ok(text.includes(convention), `${document} says once how it names its tests`);
      assert.ok(namedTests(text).length >= 10, `${document} names the tests behind its statements`);
    }
  });

  it('reports a file or a title that does not exist', () => {
    const markdown = [
      'A promise (test: `test/docs/named-tests.test.ts` "no such title").',
      'Another (test: `test/docs/gone.test.ts` "anything").',
      'A whole suite: `test/docs/named-tests.test.ts`.',
    ].join('\n');
    assert.deepEqual(brokenReferences('doc.md', namedTests(markdown)), [
      'doc.md:1: test/docs/named-tests.test.ts has no test titled "no such title"',
      'doc.md:2: test/docs/gone.test.ts does not exist',
    ]);
  });

  it('reads titles joined with +, across lines, and a template as any text in its holes', () => {
    const source = [
      "describe('a suite', () => {",
      "  it('one half, ' +",
      "    'the other half', () => {});",
      '  it(`closes within ${limit} s on the ${path} path`, () => {});',
      '});',
    ].join('\n');
    const titles = declaredTitles(source);
    const matches = (title: string) => titles.some((declared) => titleMatches(declared, title));
    assert.ok(matches('a suite'));
    assert.ok(matches('one half, the other half'));
    assert.ok(matches('closes within 1 s on the direct path'));
    assert.ok(!matches('closes within 1 s on the direct'));
    assert.ok(!matches('one half,'));
    const markdown = 'Wrapped (tests: `test/a.test.ts` "one half,\n  the other half", "a suite").';
    assert.deepEqual(namedTests(markdown), [
      { file: 'test/a.test.ts', title: 'one half, the other half', line: 1 },
      { file: 'test/a.test.ts', title: 'a suite', line: 1 },
    ]);
  });
});
