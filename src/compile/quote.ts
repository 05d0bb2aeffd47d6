/**
 * Quoting by construction: every manifest value that lands in generated code (shell, Python, Markdown,
 * a CloudFormation Fn::Sub template) goes through one of these functions for its target language, so
 * that no value can end a string, a comment or a line early. The schema refuses most hostile values
 * first; these hold even for a value it let through. Pure.
 */

/** Characters that end a line somewhere (shell, Python, YAML 1.1 readers, editors) or are not text. */
// eslint-disable-next-line no-control-regex
const lineBreaksAndControls = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;

/** Characters a shell word may hold without quotes (Python's shlex.quote uses the same set). */
const bareShellWord = /^[A-Za-z0-9@%+=:,./_-]+$/;

/**
 * One POSIX shell word: bare when it holds only characters with no meaning to the shell, otherwise in
 * single quotes (nothing is special inside them; a single quote is closed, escaped and reopened).
 */
export function shellQuote(value: string | number): string {
  const text = String(value);
  if (text.includes('\u0000')) throw new Error('a shell word cannot hold a NUL character');
  if (bareShellWord.test(text)) return text;
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * Text inside a double-quoted shell string: the four characters that keep a meaning there ($, `, "
 * and \) are backslash-escaped.
 */
export function shellDoubleQuoted(value: string | number): string {
  const text = String(value);
  if (text.includes('\u0000')) throw new Error('a shell word cannot hold a NUL character');
  return text.replace(/[$`"\\]/g, (char) => `\\${char}`);
}

/**
 * `"${NAME:-N}"`: a shell variable's value, or the whole number N when it is unset or empty. Only a number:
 * quotes inside such an expansion are read differently by bash and by POSIX shells.
 */
export function shellVariableOr(name: string, fallback: number): string {
  if (!/^[A-Z_][A-Z0-9_]*$/.test(name)) throw new Error(`not a shell variable name: ${name}`);
  if (!Number.isSafeInteger(fallback)) throw new Error(`expected a whole number, got ${String(fallback)}`);
  return `"\${${name}:-${fallback}}"`;
}

/**
 * A Python string literal: printable ASCII as is, everything else (quotes, backslashes, line breaks,
 * NUL, any non-ASCII character) as an escape, so the literal is one line of ASCII whatever the value.
 */
export function pythonQuote(value: string): string {
  let out = '"';
  for (const char of value) {
    const code = char.codePointAt(0) as number;
    if (char === '"' || char === '\\') out += `\\${char}`;
    else if (code >= 0x20 && code < 0x7f) out += char;
    else if (code <= 0xffff) out += `\\u${code.toString(16).padStart(4, '0')}`;
    else out += `\\U${code.toString(16).padStart(8, '0')}`;
  }
  return `${out}"`;
}

/** Text for a one-line comment (shell or Python) or a one-line message: line breaks and controls become spaces. */
export function oneLine(value: string): string {
  return value.replace(lineBreaksAndControls, ' ');
}

/**
 * Text for a CloudFormation Fn::Sub template that must come out literally: `${` is written `${!`,
 * which Fn::Sub turns back into `${` instead of substituting a stack value.
 */
export function subLiteral(value: string): string {
  return value.replace(/\$\{/g, '${!');
}

/** Inline Markdown text: one line, with every character that could start markup backslash-escaped. */
export function markdownText(value: string): string {
  return oneLine(value).replace(/[\\`*_[\]<>|~]/g, (char) => `\\${char}`);
}

/**
 * A Markdown code span: fenced with more backticks than the longest run inside, padded when the text
 * starts or ends with a backtick, one line; in a table cell `|` is escaped so that the cell does not split.
 */
export function markdownCode(value: string | number, inTable = false): string {
  const line = oneLine(String(value));
  const text = inTable ? line.replace(/\|/g, '\\|') : line;
  const longestRun = Math.max(0, ...[...text.matchAll(/`+/g)].map((run) => run[0].length));
  const fence = '`'.repeat(longestRun + 1);
  const pad = text.startsWith('`') || text.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${text}${pad}${fence}`;
}

/** An SQL identifier that needs no quoting; anything else is refused (the schema refuses it first). */
export function sqlIdentifier(value: string): string {
  if (!/^[a-z_][a-z0-9_]*$/.test(value)) throw new Error(`not a plain SQL identifier: ${JSON.stringify(value)}`);
  return value;
}

/**
 * Text as a printf format that prints exactly its UTF-8 bytes: letters and digits as they are, every
 * other byte as a three-digit octal escape, so that the format holds nothing a shell, printf (% or \)
 * or Fn::Sub reads otherwise.
 */
export function printfOctal(value: string): string {
  let out = '';
  for (const byte of Buffer.from(value, 'utf8')) {
    const char = String.fromCharCode(byte);
    out += /[A-Za-z0-9]/.test(char) ? char : `\\${byte.toString(8).padStart(3, '0')}`;
  }
  return out;
}

/**
 * Text as printable ASCII with Python's backslash escapes (\\, \r, \n, \t, \xHH, \uHHHH, \UHHHHHHHH),
 * which codecs.decode(…, "unicode_escape") turns back into the text: one line, whatever it holds.
 */
export function pythonEscapes(value: string): string {
  const named: Record<string, string> = { '\\': '\\\\', '\r': '\\r', '\n': '\\n', '\t': '\\t' };
  let out = '';
  for (const char of value) {
    const code = char.codePointAt(0) as number;
    if (named[char] !== undefined) out += named[char];
    else if (code >= 0x20 && code < 0x7f) out += char;
    else if (code < 0x100) out += `\\x${code.toString(16).padStart(2, '0')}`;
    else if (code <= 0xffff) out += `\\u${code.toString(16).padStart(4, '0')}`;
    else out += `\\U${code.toString(16).padStart(8, '0')}`;
  }
  return out;
}

/**
 * One shell word from a text with {name} placeholders: the text around them single-quoted where it
 * needs to be, each placeholder the double-quoted shell variable `variables` names for it ({env:NAME}:
 * the variable NAME), all joined
 * without a space, so that whatever a variable holds at run time stays inside the one word.
 */
export function shellWordWith(word: string, variables: Readonly<Record<string, string>>): string {
  const parts: string[] = [];
  let rest = word;
  for (;;) {
    // {env:NAME} is the environment variable NAME itself: a value the check reads when it runs.
    const match = /\{([a-z]+|env:[A-Z_][A-Z0-9_]*)\}/.exec(rest);
    const key = match?.[1];
    const variable = key === undefined ? undefined : key.startsWith('env:') ? key.slice(4) : variables[key];
    if (!match || variable === undefined) {
      if (!match) {
        if (rest !== '' || parts.length === 0) parts.push(shellQuote(rest));
        return parts.join('');
      }
      // A brace pair that names no variable is text.
      parts.push(shellQuote(rest.slice(0, match.index + match[0].length)));
      rest = rest.slice(match.index + match[0].length);
      continue;
    }
    if (match.index > 0) parts.push(shellQuote(rest.slice(0, match.index)));
    parts.push(`"$${variable}"`);
    rest = rest.slice(match.index + match[0].length);
  }
}
