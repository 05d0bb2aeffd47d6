/**
 * JSON documents read strictly, with positions: no trailing comma, no comment, no key twice, and the
 * first mistake named in JSON's words at its line and column. A YAML parser would take most JSON
 * mistakes for YAML ones (a missing comma is "an unexpected double-quoted scalar") or accept them
 * (a trailing comma), so text that is plainly meant as JSON is read here instead.
 */
import { encodePointer, type Position, type YamlSource } from './yaml-source.ts';

/**
 * Whether `text` is meant as JSON: an object whose first key is double-quoted, or `{}`. A YAML flow
 * mapping such as `{relay: db}` also opens with a brace, and stays YAML.
 */
export function looksLikeJson(text: string): boolean {
  return /^\uFEFF?[ \t\n\r]*\{[ \t\n\r]*["}]/.test(text);
}

/** Deeper nesting is refused: no Portal document goes past a few levels, and the reader recurses. */
export const maxJsonDepth = 64;

/**
 * `text` as a source like parseYamlSource's: its value, or exactly one syntax problem; every problem
 * found later (by a schema) is located by the JSON pointer of the value or key at fault.
 */
export function parseJsonSource(file: string, text: string): YamlSource {
  const starts = lineStarts(text);
  const positionAt = (offset: number): Position => {
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const middle = Math.ceil((low + high) / 2);
      if ((starts[middle] as number) <= offset) low = middle;
      else high = middle - 1;
    }
    return { line: low + 1, column: offset - (starts[low] as number) + 1 };
  };
  const scanner = new Scanner(text);
  const failure = scanner.document();
  const places = scanner.places;
  const locate = (pointer: string, at: 'key' | 'value' = 'value'): Position => {
    let path = pointer;
    let place = places.get(path);
    while (place === undefined && path !== '') {
      path = path.slice(0, path.lastIndexOf('/'));
      place = places.get(path);
    }
    const offset = at === 'key' && path === pointer && place?.key !== undefined ? place.key : (place?.value ?? 0);
    return positionAt(offset);
  };
  const syntaxProblems = failure
    ? [{ file, ...positionAt(failure.offset), pointer: failure.pointer, message: `not valid JSON: ${failure.message}` }]
    : [];
  return {
    file,
    // The scanner accepted exactly JSON, so JSON.parse agrees and builds the value (a "__proto__" key
    // included, as an own property). A byte order mark is not JSON's, but editors write one.
    value: failure ? undefined : JSON.parse(text.replace(/^\uFEFF/, '')),
    syntaxProblems,
    locate,
    problem(pointer, message, at = 'value') {
      return { file, ...locate(pointer, at), pointer, message };
    },
  };
}

interface Place {
  /** Where the key of the value starts (its opening quote), for a value in an object. */
  readonly key: number | undefined;
  readonly value: number;
}

interface Failure {
  readonly offset: number;
  /** The value at or just before the mistake. */
  readonly pointer: string;
  readonly message: string;
}

/** Thrown inside the scanner only, to leave every level of the descent at once. */
/** Thrown to leave the recursive descent at the first error; caught where parsing started. */
class Stop extends Error {
  constructor(readonly failure: Failure) {
    super(failure.message);
  }
}

const number = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const escapes = '"\\/bfnrt';

class Scanner {
  readonly places = new Map<string, Place>();
  private at: number;
  private last = '';
  private depth = 0;

  constructor(private readonly text: string) {
    this.at = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  }

  document(): Failure | undefined {
    try {
      this.value('', undefined);
      this.space();
      if (this.at < this.text.length)
        this.fail(`expected the end of the text after the document, found ${this.found()}`);
      return undefined;
    } catch (error) {
      if (error instanceof Stop) return error.failure;
      throw error;
    }
  }

  private value(pointer: string, key: number | undefined): void {
    this.space();
    this.places.set(pointer, { key, value: this.at });
    this.last = pointer;
    const next = this.text[this.at];
    if (next === '{') this.object(pointer);
    else if (next === '[') this.array(pointer);
    else if (next === '"') this.string();
    else if (next === '-' || (next !== undefined && next >= '0' && next <= '9')) this.number();
    else {
      const literal = ['true', 'false', 'null'].find((word) => this.text.startsWith(word, this.at));
      if (literal === undefined) this.fail(`expected a value, found ${this.found()}`);
      this.at += literal.length;
    }
    this.last = pointer;
  }

  private object(pointer: string): void {
    this.enter();
    const keys = new Set<string>();
    this.space();
    if (this.text[this.at] === '}') return this.leave();
    let first = true;
    for (;;) {
      this.space();
      if (this.text[this.at] !== '"') {
        this.fail(
          first
            ? `expected a property name in double quotes or '}', found ${this.found()}`
            : `expected a property name in double quotes after ',', found ${this.found()}`,
        );
      }
      first = false;
      const keyAt = this.at;
      const key = this.string();
      const child = pointer + encodePointer([key]);
      this.last = child;
      if (keys.has(key)) this.fail(`the key "${key}" appears twice in one object; keep one`, keyAt);
      keys.add(key);
      this.space();
      if (this.text[this.at] !== ':') this.fail(`expected ':' after a property name, found ${this.found()}`);
      this.at += 1;
      this.value(child, keyAt);
      if (this.separator('}', 'after a property value')) return this.leave();
    }
  }

  private array(pointer: string): void {
    this.enter();
    this.space();
    if (this.text[this.at] === ']') return this.leave();
    for (let index = 0; ; index += 1) {
      this.value(`${pointer}/${index}`, undefined);
      if (this.separator(']', 'after an array element')) return this.leave();
    }
  }

  /** After a member: true at the closing bracket (consumed), false after a comma that another member follows. */
  private separator(close: '}' | ']', after: string): boolean {
    this.space();
    const next = this.text[this.at];
    if (next === close) return true;
    if (next !== ',') this.fail(`expected ',' or '${close}' ${after}, found ${this.found()}`);
    const comma = this.at;
    this.at += 1;
    this.space();
    if (this.text[this.at] === close) this.fail(`a trailing comma before '${close}'; remove the comma`, comma);
    return false;
  }

  private string(): string {
    const start = this.at;
    this.at += 1;
    for (;;) {
      const code = this.text.charCodeAt(this.at);
      if (Number.isNaN(code)) this.fail(`the string is not closed: expected '"' before the end of the text`, start);
      if (code === 0x22) break;
      if (code === 0x5c) {
        this.escape();
      } else {
        if (code < 0x20)
          this.fail(
            code === 0x0a
              ? `a string may not span lines: close it with '"' on its line, or write \\n for a line break`
              : `a string may not hold the control character U+${code.toString(16).padStart(4, '0').toUpperCase()}; ` +
                  `write it as \\u${code.toString(16).padStart(4, '0')}`,
          );
        this.at += 1;
      }
    }
    this.at += 1;
    return JSON.parse(this.text.slice(start, this.at)) as string;
  }

  private escape(): void {
    const letter = this.text[this.at + 1];
    if (letter === undefined) this.fail(`the string is not closed: expected '"' before the end of the text`);
    if (letter === 'u') {
      if (!/^[0-9A-Fa-f]{4}$/.test(this.text.slice(this.at + 2, this.at + 6)))
        this.fail('expected four hexadecimal digits after \\u');
      this.at += 6;
    } else if (escapes.includes(letter)) {
      this.at += 2;
    } else {
      this.fail(
        `\\${letter} is not an escape in JSON; use \\", \\\\, \\/, \\b, \\f, \\n, \\r, ` +
          `\\t or \\u and four hexadecimal digits`,
      );
    }
  }

  private number(): void {
    number.lastIndex = this.at;
    const match = number.exec(this.text);
    if (!match) {
      this.at += 1;
      this.fail(`expected a digit after '-', found ${this.found()}`);
    }
    this.at = number.lastIndex;
    const next = this.text[this.at];
    if (next !== undefined && next >= '0' && next <= '9')
      this.fail('a number may not start with 0 followed by more digits', this.at - 1);
    if (next === '.' || next === 'e' || next === 'E') {
      this.at += 1;
      this.fail(`expected a digit after '${next}' in a number, found ${this.found()}`);
    }
  }

  private enter(): void {
    this.at += 1;
    this.depth += 1;
    if (this.depth > maxJsonDepth) this.fail(`nested more than ${maxJsonDepth} levels deep`, this.at - 1);
  }

  private leave(): void {
    this.at += 1;
    this.depth -= 1;
  }

  private space(): void {
    for (;;) {
      const code = this.text.charCodeAt(this.at);
      if (code !== 0x20 && code !== 0x09 && code !== 0x0a && code !== 0x0d) return;
      this.at += 1;
    }
  }

  /** What stands at the current position, for "found …". */
  private found(): string {
    if (this.at >= this.text.length) return 'the end of the text';
    const next = this.text[this.at] as string;
    if (next === '"') return 'a string';
    if (next === "'") return 'a single quote (JSON strings take double quotes)';
    if (next === '-' || (next >= '0' && next <= '9')) return 'a number';
    const word = /[A-Za-z_$][\w$-]{0,31}/y;
    word.lastIndex = this.at;
    const match = word.exec(this.text);
    return `'${match ? match[0] : String.fromCodePoint(this.text.codePointAt(this.at) as number)}'`;
  }

  private fail(message: string, offset = this.at): never {
    throw new Stop({ offset, pointer: this.last, message });
  }
}

function lineStarts(text: string): number[] {
  const starts = [0];
  for (let index = text.indexOf('\n'); index >= 0; index = text.indexOf('\n', index + 1)) starts.push(index + 1);
  return starts;
}
