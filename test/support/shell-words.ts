// A shell command line as the simple commands it runs, each as its words: enough of the shell's
// grammar to find every program a document's line starts (quotes, `$(…)`, pipes and lists,
// redirections, comments, `bash -c`), without running anything.

/** One program a line runs: its words after quotes are removed, assignments and redirections left out. */
export interface SimpleCommand {
  /** `NAME=value` words before the program. */
  readonly assignments: readonly string[];
  readonly words: readonly string[];
}

/** What a command substitution becomes as a word: its output is not known here. */
export const substituted = 'SUBSTITUTED';

const listOperators = new Set(['&&', '||', '|', ';', '&', '(', ')', '|&']);

interface Token {
  readonly kind: 'word' | 'operator' | 'redirect';
  readonly text: string;
}

/** The closing index of a `$(` … `)` (or `(` … `)`) that opens at `open`, quotes respected. */
function closingParen(line: string, open: number): number {
  let depth = 0;
  for (let at = open; at < line.length; at++) {
    const char = line[at];
    if (char === "'") {
      at = line.indexOf("'", at + 1);
      if (at < 0) return line.length;
    } else if (char === '\\') at++;
    else if (char === '(') depth++;
    else if (char === ')' && --depth === 0) return at;
  }
  return line.length;
}

/** Splits a line into words, list operators and redirections; substitutions are collected on the side. */
function tokenize(line: string, substitutions: string[]): Token[] {
  const tokens: Token[] = [];
  let word: string | undefined;
  const endWord = () => {
    if (word !== undefined) tokens.push({ kind: 'word', text: word });
    word = undefined;
  };
  const substitution = (at: number): number => {
    const close = closingParen(line, at + 1);
    substitutions.push(line.slice(at + 2, close));
    word = (word ?? '') + substituted;
    return close;
  };
  for (let at = 0; at < line.length; at++) {
    const char = line[at] as string;
    if (/\s/.test(char)) endWord();
    else if (char === '#' && word === undefined) break;
    else if (char === '\\') word = (word ?? '') + (line[++at] ?? '');
    else if (char === "'") {
      const close = line.indexOf("'", at + 1);
      word = (word ?? '') + line.slice(at + 1, close < 0 ? line.length : close);
      at = close < 0 ? line.length : close;
    } else if (char === '"') {
      word = word ?? '';
      for (at++; at < line.length && line[at] !== '"'; at++) {
        if (line[at] === '\\' && /["\\$`]/.test(line[at + 1] ?? '')) word += line[++at];
        else if (line[at] === '$' && line[at + 1] === '(') at = substitution(at);
        else word += line[at];
      }
    } else if (char === '$' && line[at + 1] === '(') at = substitution(at);
    else if (char === '`') {
      const close = line.indexOf('`', at + 1);
      substitutions.push(line.slice(at + 1, close < 0 ? line.length : close));
      word = (word ?? '') + substituted;
      at = close < 0 ? line.length : close;
    } else if (char === '<' || char === '>' || (char === '&' && line[at + 1] === '>')) {
      // A redirection: an optional descriptor before it (2>), the operator, then its target word,
      // unless it duplicates a descriptor (2>&1).
      const descriptor = word !== undefined && /^\d+$/.test(word) ? word : undefined;
      if (word !== undefined && descriptor === undefined) endWord();
      word = undefined;
      const operator = /^(&>>?|<<<|<<-?|<>|>>|>\||>&\d*-?|<&\d*-?|<|>)/.exec(line.slice(at))?.[0] ?? char;
      at += operator.length - 1;
      tokens.push({ kind: 'redirect', text: (descriptor ?? '') + operator });
    } else if (char === '|' || char === '&' || char === ';' || char === '(' || char === ')') {
      endWord();
      const two = line.slice(at, at + 2);
      const operator = ['&&', '||', '|&', ';;'].includes(two) ? two : char;
      at += operator.length - 1;
      tokens.push({ kind: 'operator', text: operator });
    } else word = (word ?? '') + char;
  }
  endWord();
  return tokens;
}

const assignment = /^[A-Za-z_][A-Za-z0-9_]*=/;

/**
 * Every simple command `line` runs, in order, those inside `$(…)` and `bash -c '…'` included. A
 * redirection and its target are left out; a heredoc's body is not on the line.
 */
export function simpleCommands(line: string): SimpleCommand[] {
  const substitutions: string[] = [];
  const tokens = tokenize(line, substitutions);
  const commands: SimpleCommand[] = [];
  let words: string[] = [];
  let assignments: string[] = [];
  let skipTarget = false;
  const end = () => {
    if (words.length > 0 || assignments.length > 0) commands.push({ assignments, words });
    words = [];
    assignments = [];
  };
  for (const token of tokens) {
    if (token.kind === 'operator' && listOperators.has(token.text)) end();
    else if (token.kind === 'redirect') skipTarget = !/&\d*-?$/.test(token.text);
    else if (skipTarget) skipTarget = false;
    else if (words.length === 0 && assignment.test(token.text)) assignments.push(token.text);
    else words.push(token.text);
  }
  end();
  const inner = substitutions.flatMap((text) => simpleCommands(text));
  const scripts = commands.flatMap((command) => {
    const [program, flag, script] = command.words;
    return (program === 'bash' || program === 'sh') && flag === '-c' && script !== undefined
      ? simpleCommands(script)
      : [];
  });
  return [...commands, ...inner, ...scripts];
}

/** Words that run the rest of the line as a program of its own (`sudo -u portal portal …`). */
const wrapperOptionsWithValue: Readonly<Record<string, readonly string[]>> = {
  sudo: ['-u', '-g', '-C', '-D', '-h', '-p', '-r', '-t', '-U'],
  env: ['-u', '-C', '-S'],
  exec: ['-a'],
  nohup: [],
  time: [],
  command: [],
  timeout: [],
};

/**
 * The program a simple command runs and its arguments, past wrappers such as `sudo -u portal`, `env
 * A=b`, `exec`, `docker exec CONTAINER` and `kubectl exec … --`.
 */
export function invocation(command: SimpleCommand): readonly string[] {
  let words = [...command.words];
  for (;;) {
    const [first, second] = words;
    if (first === undefined) return words;
    const valued = wrapperOptionsWithValue[first];
    if (valued) {
      let at = 1;
      while (at < words.length) {
        const word = words[at] as string;
        if (valued.includes(word)) at += 2;
        else if (word.startsWith('-') || assignment.test(word) || (first === 'timeout' && /^\d/.test(word))) at++;
        else break;
      }
      words = words.slice(at);
    } else if ((first === 'docker' || first === 'docker-compose' || first === 'podman') && second === 'exec') {
      let at = 2;
      while (at < words.length && (words[at] as string).startsWith('-'))
        at += ['-e', '--env', '-u', '--user', '-w', '--workdir'].includes(words[at] as string) ? 2 : 1;
      words = words.slice(at + 1);
    } else if (first === 'docker' && second === 'compose' && words[2] === 'exec') {
      words = ['docker-compose', ...words.slice(2)];
    } else if (first === 'kubectl' && second === 'exec' && words.includes('--')) {
      words = words.slice(words.indexOf('--') + 1);
    } else return words;
  }
}

/** Whether a program word names Portal's CLI: `portal`, or a path to it (`/opt/portal/bin/portal`). */
export function isPortal(program: string | undefined): boolean {
  return program !== undefined && /(^|\/)portal$/.test(program);
}
