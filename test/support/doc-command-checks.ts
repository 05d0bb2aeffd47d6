// What is wrong with the commands a document shows: a `portal` line the program refuses (in any
// block, transcripts of a session's output included), or a shell block of other programs that no test
// runs as written. Reads package.json and the named test files; runs nothing.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { isInstruction, runAsWrittenBy, shellBlocks, type ShellBlock } from './doc-shell-blocks.ts';
import { portalParseProblem } from './portal-parse.ts';
import { invocation, isPortal, simpleCommands } from './shell-words.ts';

/** Shell built-ins that only set up the shell the next commands run in, and `cat` of a file it made. */
const setUp = new Set(['cd', 'source', '.', 'umask', 'export', 'cat']);

interface Repository {
  readonly root: string;
  /** package.json's scripts: `npm run NAME`, `npm start` and `npm test` must name one. */
  readonly scripts: ReadonlySet<string>;
}

export function repository(root: string): Repository {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts?: object };
  return { root, scripts: new Set(Object.keys(manifest.scripts ?? {})) };
}

/** Why `npm …` or `sh FILE` cannot be checked against the repository, or undefined when it can. */
function repositoryProblem(words: readonly string[], repo: Repository): string | undefined {
  const [program, first, second] = words;
  if (program === 'npm') {
    if (first === 'ci' || first === 'link' || first === 'pack') return undefined;
    const script = first === 'run' || first === 'run-script' ? second : first;
    if (script !== undefined && repo.scripts.has(script)) return undefined;
    return `npm ${words.slice(1).join(' ')}: package.json has no such script`;
  }
  if ((program === 'sh' || program === 'bash') && first !== undefined && !first.startsWith('-'))
    return existsSync(join(repo.root, first)) ? undefined : `${first} is not in the repository`;
  return `${program ?? ''} is not run by a test`;
}

/** Whether a test file, or a module of test/support it imports, reads `document`. */
export function testReads(testFile: string, document: string, root: string): boolean {
  const path = join(root, testFile);
  if (!existsSync(path)) return false;
  const source = readFileSync(path, 'utf8');
  if (source.includes(document)) return true;
  return [...source.matchAll(/from '(\.{1,2}\/[^']+\.ts)'/g)].some((match) => {
    const imported = normalize(join(dirname(testFile), match[1] as string));
    return imported.startsWith('test/support/') && readFileSync(join(root, imported), 'utf8').includes(document);
  });
}

function blockProblems(document: string, block: ShellBlock, repo: Repository): string[] {
  const problems: string[] = [];
  const runBy = runAsWrittenBy(block);
  if (runBy !== undefined && !testReads(runBy, document, repo.root))
    problems.push(`${document}:${block.line}: ${runBy} does not read ${document}, so it cannot run this block`);
  for (const command of block.commands) {
    for (const simple of simpleCommands(command.text)) {
      const words = invocation(simple);
      const [program, ...args] = words;
      if (program === undefined) continue;
      if (isPortal(program)) {
        const problem = portalParseProblem(args);
        if (problem) problems.push(`${document}:${command.line}: portal ${args.join(' ')}: ${problem.split('\n')[0]}`);
      } else if (isInstruction(block) && runBy === undefined && !setUp.has(program)) {
        const problem = repositoryProblem(words, repo);
        if (problem)
          problems.push(
            `${document}:${command.line}: ${problem}: name the test that runs this block as written ` +
              '("run as written by `test/….test.ts`" above it) or show only portal commands',
          );
      }
    }
  }
  return problems;
}

/** Every problem of every shell block of `markdown`, each as `document:line: what`. */
export function documentCommandProblems(document: string, markdown: string, repo: Repository): string[] {
  return shellBlocks(markdown).flatMap((block) => blockProblems(document, block, repo));
}
