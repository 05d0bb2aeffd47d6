/** The words and marks of an allow expression, each with the column it starts at. Pure. */

export type Token =
  | { readonly kind: 'word'; readonly text: string; readonly column: number }
  | { readonly kind: 'string'; readonly text: string; readonly column: number }
  | { readonly kind: '(' | ')' | '[' | ']' | ',' | '='; readonly column: number }
  | { readonly kind: 'end'; readonly column: number };

/** A character that cannot start a token, an unclosed string: the column and what was wrong. */
export interface TokenProblem {
  readonly column: number;
  readonly expected: string;
  readonly found: string;
}

const marks = new Set(['(', ')', '[', ']', ',', '=']);
const wordCharacter = /[A-Za-z0-9_.-]/;

/** Every token of `text`, ending with `end`, or the first character that cannot be read. */
export function tokenize(text: string): { ok: true; tokens: Token[] } | { ok: false; problem: TokenProblem } {
  const tokens: Token[] = [];
  let at = 0;
  while (at < text.length) {
    const char = text[at] as string;
    const column = at + 1;
    if (char === ' ' || char === '\t') {
      at += 1;
    } else if (marks.has(char)) {
      tokens.push({ kind: char as '(' | ')' | '[' | ']' | ',' | '=', column });
      at += 1;
    } else if (char === '"') {
      const close = text.indexOf('"', at + 1);
      if (close < 0)
        return {
          ok: false,
          problem: { column, expected: 'a closing " after the value', found: 'the end of the expression' },
        };
      tokens.push({ kind: 'string', text: text.slice(at + 1, close), column });
      at = close + 1;
    } else if (wordCharacter.test(char)) {
      let end = at + 1;
      while (end < text.length && wordCharacter.test(text[end] as string)) end += 1;
      tokens.push({ kind: 'word', text: text.slice(at, end), column });
      at = end;
    } else {
      return {
        ok: false,
        problem: {
          column,
          expected: 'a name, a quoted value, "(", ")", "[", "]", "," or "="',
          found: describeCharacter(char),
        },
      };
    }
  }
  tokens.push({ kind: 'end', column: text.length + 1 });
  return { ok: true, tokens };
}

/** A character as a message shows it: printable ones quoted, others by code point. */
export function describeCharacter(char: string): string {
  const code = char.codePointAt(0) ?? 0;
  return code > 0x20 && code < 0x7f ? `"${char}"` : `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** A token as a message shows it. */
export function describeToken(token: Token): string {
  switch (token.kind) {
    case 'end':
      return 'the end of the expression';
    case 'word':
      return `"${printableSlice(token.text)}"`;
    case 'string':
      return `the value "${printableSlice(token.text)}"`;
    default:
      return `"${token.kind}"`;
  }
}

/** At most 40 characters of user text, with anything unprintable shown as "?". */
function printableSlice(text: string): string {
  // eslint-disable-next-line no-control-regex
  const shown = text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029"\\]/g, '?');
  return shown.length > 40 ? `${shown.slice(0, 40)}…` : shown;
}
