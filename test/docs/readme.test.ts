/**
 * The README stays what a newcomer reads in ten minutes: at most 2,000 words (as `wc -w` counts them),
 * a picture of the parts, the quick start, and one click to every guide under docs/; no relative link
 * of the README or of docs/ leads to a missing file or heading.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { anchors, headingSlug, relativeLinks } from '../support/markdown-links.ts';

const root = process.cwd();
/** What a newcomer reads in about ten minutes. */
const maxReadmeWords = 2000;

const readme = () => readFileSync(join(root, 'README.md'), 'utf8');

function documents(): string[] {
  const docs = readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`);
  return ['README.md', ...docs.sort()];
}

/** Words as `wc -w` counts them: runs of characters other than white space. */
function wordCount(text: string): number {
  return text.split(/\s+/).filter((word) => word !== '').length;
}

/** What is wrong with each relative link of `document`: a file or a heading that does not exist. */
function brokenLinks(document: string, markdown: string): string[] {
  const problems: string[] = [];
  for (const link of relativeLinks(markdown)) {
    const [path = '', anchor] = link.target.split('#', 2);
    const target = path === '' ? document : normalize(join(dirname(document), decodeURIComponent(path)));
    const where = `${document}:${link.line}: ${link.target}`;
    if (path !== '' && !existsSync(join(root, target))) {
      problems.push(`${where}: ${target} does not exist`);
      continue;
    }
    if (anchor === undefined || anchor === '' || !target.endsWith('.md')) continue;
    const headings = path === '' ? markdown : readFileSync(join(root, target), 'utf8');
    if (!anchors(headings).has(anchor)) problems.push(`${where}: ${target} has no heading whose anchor is #${anchor}`);
  }
  return problems;
}

describe('the README: short, with a picture, and one click to every guide', () => {
  it(`has at most ${maxReadmeWords} words, as wc -w counts them`, () => {
    const words = wordCount(readme());
    assert.ok(words <= maxReadmeWords, `README.md has ${words} words; move details to a guide under docs/`);
  });

  it('counts words as wc -w does', () => {
    assert.equal(wordCount('  one two\tthree\n\nfour — `five`  '), 6);
  });

  it('opens with a picture of the controller, the relays, the inlet, the outlet and the direct path', () => {
    const text = readme();
    const picture = /```\n([\s\S]*?)```/.exec(text.slice(0, text.indexOf('\n## ')))?.[1] ?? '';
    for (const part of ['controller', 'relays', 'inlet', 'outlet', 'direct', 'clients', 'service'])
      assert.ok(picture.includes(part), `the picture above the first section shows the ${part}`);
  });

  it('has the quick start, the one-machine try, install, the documentation index and the tests', () => {
    const headings = readme()
      .split('\n')
      .filter((line) => line.startsWith('## '));
    for (const heading of ['## Quick start', '## Try it on one machine', '## Install', '## Documentation', '## Tests'])
      assert.ok(
        headings.some((line) => line.startsWith(heading)),
        `README.md has a section "${heading}"`,
      );
  });

  it('links every guide under docs/', () => {
    const linked = new Set(relativeLinks(readme()).map((link) => link.target.split('#')[0]));
    const missing = documents()
      .filter((document) => document !== 'README.md')
      .filter((document) => !linked.has(document));
    assert.deepEqual(missing, [], 'each guide is one click from the README');
  });

  it('has every relative link of README.md and docs/*.md lead to a file and heading that exist', () => {
    const problems = documents().flatMap((document) =>
      brokenLinks(document, readFileSync(join(root, document), 'utf8')),
    );
    assert.deepEqual(problems, []);
  });

  it('reports a missing file and a missing heading, and makes anchors as GitHub does', () => {
    const markdown = [
      '# Guide',
      'See [the README](../README.md#install), [nothing](gone.md) and [here](#no-such-heading).',
      '`[not a link](gone.md)`',
      '```',
      '[in a block](gone.md)',
      '```',
      '## Try it: expel the `quick start`’s inlet, read the trail',
    ].join('\n');
    assert.deepEqual(brokenLinks('docs/guide.md', markdown), [
      'docs/guide.md:2: gone.md: docs/gone.md does not exist',
      'docs/guide.md:2: #no-such-heading: docs/guide.md has no heading whose anchor is #no-such-heading',
    ]);
    assert.equal(
      headingSlug("Try it: expel the quick start's inlet, read the trail, write a policy"),
      'try-it-expel-the-quick-starts-inlet-read-the-trail-write-a-policy',
    );
    assert.equal(headingSlug('What `portal reset` leaves behind'), 'what-portal-reset-leaves-behind');
    assert.deepEqual([...anchors('## A\n## A\n```\n## B\n```')], ['a', 'a-1']);
  });
});
