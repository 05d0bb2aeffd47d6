/**
 * Every command the README and docs/ show is checked: each `portal …` line of every shell block (and of
 * every transcript) is parsed by the real program of src/cli with its actions taken out, and every
 * shell block that runs another program names the test that runs it as written.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { documentCommandProblems, repository } from '../support/doc-command-checks.ts';
import { placeholderWord, runAsWrittenBy, shellBlocks } from '../support/doc-shell-blocks.ts';
import { invocation, isPortal, simpleCommands, substituted } from '../support/shell-words.ts';

const root = process.cwd();

function documents(): string[] {
  const docs = readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`);
  return ['README.md', ...docs.sort()];
}

/** The `portal` invocations of a document's blocks, as the words after `portal`. */
function portalInvocations(markdown: string): string[][] {
  return shellBlocks(markdown).flatMap((block) =>
    block.commands.flatMap((command) =>
      simpleCommands(command.text)
        .map(invocation)
        .filter((words) => isPortal(words[0]))
        .map((words) => words.slice(1)),
    ),
  );
}

describe('documents: every command shown is parsed by the program or run by a test', () => {
  it('parses every portal command of README.md and docs/*.md, and finds a test for every other program', () => {
    const repo = repository(root);
    const problems = documents().flatMap((document) =>
      documentCommandProblems(document, readFileSync(join(root, document), 'utf8'), repo),
    );
    assert.deepEqual(problems, []);
  });

  it("finds the README quick start's portal commands, continuations joined", () => {
    const found = portalInvocations(readFileSync(join(root, 'README.md'), 'utf8'));
    const lines = found.map((words) => words.join(' '));
    assert.ok(lines.includes('project ticket --attribute db-inlet'), lines.join('\n'));
    const outlet = found.find((words) => words.includes('--enrollment-ticket-file') && words.includes('outlet.ticket'));
    assert.ok(outlet, lines.join('\n'));
    assert.equal(outlet.at(-2), '--configuration');
    assert.match(outlet.at(-1) ?? '', /^\{"relay": "db", "tcp-outlet"/);
  });

  it('names file:line for an unknown command, an unknown option and a missing argument', () => {
    const markdown = [
      '# A guide', // 1
      '', // 2
      '```sh', // 3
      'portal node show --ready', // 4
      'portal nodes show', // 5
      'portal node create --foreground \\', // 6
      '  --configuraton x.yaml', // 7
      'portal project revoke', // 8
      'portal project revoke <member id> --reason "lost"   # a comment --not-an-option', // 9
      '```', // 10
    ].join('\n');
    const problems = documentCommandProblems('docs/guide.md', markdown, repository(root));
    assert.deepEqual(
      problems.map((problem) => problem.replace(/: error: .*$/, '')),
      [
        'docs/guide.md:5: portal nodes show',
        'docs/guide.md:6: portal node create --foreground --configuraton x.yaml',
        'docs/guide.md:8: portal project revoke',
      ],
    );
    assert.match(problems[0] ?? '', /unknown command 'nodes'/);
    assert.match(problems[1] ?? '', /unknown option '--configuraton'/);
    assert.match(problems[2] ?? '', /missing required argument 'member'/);
  });

  it('finds portal behind assignments, sudo, docker exec, $(…), bash -c, pipes and redirections', () => {
    const found = portalInvocations(
      [
        '```sh',
        'PORTAL_HOME=~/.portal-ops portal node show',
        'sudo -u portal /opt/portal/bin/portal node show --json | jq .status > status.json 2>&1',
        'docker exec postgres-inlet portal node show',
        'INLET=$(portal project members --json | jq -r .id)',
        'bash -c "portal project ca > ca.pem" && echo done',
        '```',
        '',
        '```',
        '$ portal project tickets',
        'portal: output, not a command',
        '```',
      ].join('\n'),
    );
    assert.deepEqual(
      found.map((words) => words.join(' ')),
      ['node show', 'node show --json', 'node show', 'project members --json', 'project ca', 'project tickets'],
    );
    assert.deepEqual(simpleCommands('INLET=$(portal project members)')[0]?.assignments, [`INLET=${substituted}`]);
    assert.deepEqual(
      shellBlocks('```sh\nportal project revoke <member id>\n```').flatMap((block) =>
        block.commands.map((c) => c.text),
      ),
      [`portal project revoke ${placeholderWord}`],
    );
  });

  it('asks a block of other programs for the test that runs it, and that test to read the document', () => {
    const dir = mkdtempSync(join(tmpdir(), 'portal-doc-commands-'));
    try {
      mkdirSync(join(dir, 'test'));
      writeFileSync(join(dir, 'package.json'), JSON.stringify({ scripts: { start: 'x', bench: 'y' } }));
      writeFileSync(join(dir, 'test', 'reads.test.ts'), "readFile('docs/guide.md')");
      writeFileSync(join(dir, 'test', 'other.test.ts'), "readFile('docs/other.md')");
      const repo = repository(dir);
      const check = (introduction: string, body: string) =>
        documentCommandProblems('docs/guide.md', `${introduction}\n\n\`\`\`sh\n${body}\n\`\`\`\n`, repo).map(
          (problem) => problem.replace(/: name the test.*$/, ''),
        );
      assert.deepEqual(check('Then:', 'curl -s 127.0.0.1:9464/healthz'), [
        'docs/guide.md:4: curl is not run by a test',
      ]);
      assert.deepEqual(check('Then:', 'cd out && npm start && npm run bench && npm run nothing'), [
        'docs/guide.md:4: npm run nothing: package.json has no such script',
      ]);
      assert.deepEqual(check('`test/reads.test.ts` runs these commands as written:', 'curl -s x'), []);
      assert.deepEqual(check('A test runs them as written (`test/other.test.ts`):', 'curl -s x'), [
        'docs/guide.md:3: test/other.test.ts does not read docs/guide.md, so it cannot run this block',
      ]);
      // A transcript of a session (an untagged block) is parsed for portal lines only.
      assert.deepEqual(
        documentCommandProblems('docs/guide.md', '```\n$ curl -s x\n$ portal nodes\n```\n', repo).map((problem) =>
          problem.replace(/: error: .*$/, ''),
        ),
        ['docs/guide.md:3: portal nodes'],
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("reads the test named in a block's introduction, wrapped across lines", () => {
    const [block] = shellBlocks(
      'A test runs these commands as written, on one\nmachine: `test/e2e/x.test.ts`.\n\n```sh\nls\n```',
    );
    assert.ok(block);
    assert.equal(runAsWrittenBy(block), 'test/e2e/x.test.ts');
  });
});
