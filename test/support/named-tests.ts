// What a document names as the test behind a statement, and the titles test files declare, so that a
// unit test can tell a reference to a test that does not exist (renamed, moved, deleted).
//
// A reference is a test file in backticks followed by one or more titles in double quotes, separated
// by commas: `test/e2e/revocation.test.ts` "lists the revoked members…", "…". A title written in a
// test with `${…}` matches any text in its place, so a document may name one case of a loop.

/** One test a document names. */
export interface NamedTest {
  readonly file: string;
  readonly title: string;
  /** 1-based line of the document where the reference starts. */
  readonly line: number;
}

/** A backticked test file, then quoted titles, across line breaks. */
const referencePattern = /`(test\/[\w./-]+\.test\.ts)`((?:\s*,?\s*"[^"]+")*)/g;
const titlePattern = /"([^"]+)"/g;

/** Collapses every run of white space to one space, as Markdown reads a wrapped line. */
export function collapseSpace(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** Every test file and title a Markdown text names, with the line each starts on. */
export function namedTests(markdown: string): NamedTest[] {
  const named: NamedTest[] = [];
  for (const match of markdown.matchAll(referencePattern)) {
    const line = markdown.slice(0, match.index).split('\n').length;
    const file = match[1] ?? '';
    const titles = [...(match[2] ?? '').matchAll(titlePattern)].map((title) => collapseSpace(title[1] ?? ''));
    if (titles.length === 0) named.push({ file, title: '', line });
    for (const title of titles) named.push({ file, title, line });
  }
  return named;
}

/** A title as a test file declares it: literal text, with `${…}` left as holes. */
export interface DeclaredTitle {
  readonly parts: readonly string[];
}

const declarationPattern = /\b(?:it|describe)(?:\.only|\.skip)?\(\s*/g;

/**
 * The titles of every `it(…)` and `describe(…)` in a test file's source, each a string, a template or
 * several of them joined with `+`.
 */
export function declaredTitles(source: string): DeclaredTitle[] {
  const titles: DeclaredTitle[] = [];
  for (const match of source.matchAll(declarationPattern)) {
    let at = (match.index ?? 0) + match[0].length;
    const parts: string[] = [''];
    for (;;) {
      const literal = readLiteral(source, at);
      if (literal === undefined) break;
      parts[parts.length - 1] += literal.parts[0] ?? '';
      parts.push(...literal.parts.slice(1));
      at = literal.end;
      const plus = /^\s*\+\s*/.exec(source.slice(at));
      if (plus === null) break;
      at += plus[0].length;
    }
    if (parts.length > 1 || parts[0] !== '') titles.push({ parts: trimEnds(parts.map(collapseInner)) });
  }
  return titles;
}

/** Collapses white space inside a part of a title; only the title's own ends are trimmed. */
function collapseInner(part: string): string {
  return part.replace(/\s+/g, ' ');
}

function trimEnds(parts: string[]): string[] {
  const last = parts.length - 1;
  return parts.map((part, index) => {
    const start = index === 0 ? part.trimStart() : part;
    return index === last ? start.trimEnd() : start;
  });
}

/** A string or template literal at `at`: its text split at each `${…}`, and where it ends. */
function readLiteral(source: string, at: number): { parts: string[]; end: number } | undefined {
  const quote = source[at];
  if (quote !== "'" && quote !== '"' && quote !== '`') return undefined;
  const parts = [''];
  let index = at + 1;
  while (index < source.length) {
    const char = source[index] ?? '';
    if (char === '\\') {
      parts[parts.length - 1] += source[index + 1] ?? '';
      index += 2;
    } else if (char === quote) {
      return { parts, end: index + 1 };
    } else if (quote === '`' && source.startsWith('${', index)) {
      index = skipPlaceholder(source, index + 2);
      parts.push('');
    } else {
      parts[parts.length - 1] += char;
      index += 1;
    }
  }
  return undefined;
}

/** The index just past the `}` that closes a `${` whose inside starts at `at`. */
function skipPlaceholder(source: string, at: number): number {
  let depth = 1;
  let index = at;
  while (index < source.length && depth > 0) {
    const char = source[index];
    if (char === '{') depth += 1;
    if (char === '}') depth -= 1;
    index += 1;
  }
  return index;
}

/** Whether a title a document gives is a declared one, each `${…}` standing for some text. */
export function titleMatches(declared: DeclaredTitle, title: string): boolean {
  const escaped = declared.parts.map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${escaped.join('.+?')}$`, 's').test(collapseSpace(title));
}
