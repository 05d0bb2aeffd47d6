/**
 * The allow expression parser: recursive descent over tokens, bounded in length and depth, returning a
 * typed Policy or the first problem with its column and what was expected there. Never throws.
 *
 *   policy  := or
 *   or      := and ("or" and)*
 *   and     := unary ("and" unary)*
 *   unary   := "not" unary | primary
 *   primary := "(" or ")" | NAME | NAME "=" VALUE | NAME "in" "[" VALUE ("," VALUE)* "]"
 *   VALUE   := '"' letters, digits, ".", "_", "-" '"'
 *
 * An expression that is one bare name is that name, even a keyword: every allow written before
 * expressions keeps its meaning.
 */
import { attributeNamePattern, attributeValuePattern } from './attributes.ts';
import { policyBounds, type Policy, type PolicyProblem, type PolicyReading } from './ast.ts';
import { describeToken, tokenize, type Token } from './tokens.ts';

export const policyKeywords: ReadonlySet<string> = new Set(['and', 'or', 'not', 'in']);

const operandExpected = 'an attribute name, "(" or "not"';
const valueExpected = 'a quoted value such as "ops" (letters, digits, ".", "_", "-")';

/** Thrown inside the parser only, caught by parsePolicy: the one problem it reports. */
class Stop extends Error {
  constructor(readonly problem: PolicyProblem) {
    super(problem.expected);
  }
}

export function parsePolicy(text: string): PolicyReading {
  if (text.length > policyBounds.length)
    return {
      ok: false,
      problem: {
        column: policyBounds.length + 1,
        expected: `at most ${policyBounds.length} characters`,
        found: `${text.length} characters`,
      },
    };
  if (attributeNamePattern.test(text)) return { ok: true, policy: { kind: 'has', name: text } };
  const read = tokenize(text);
  if (!read.ok) return { ok: false, problem: read.problem };
  try {
    const parser = new Parser(read.tokens);
    const policy = parser.or(0);
    parser.expectEnd();
    return { ok: true, policy };
  } catch (error) {
    if (error instanceof Stop) return { ok: false, problem: error.problem };
    throw error;
  }
}

class Parser {
  private at = 0;

  constructor(private readonly tokens: readonly Token[]) {}

  or(depth: number): Policy {
    let left = this.and(depth);
    while (this.isWord('or')) {
      this.at += 1;
      left = { kind: 'or', left, right: this.and(depth) };
    }
    return left;
  }

  expectEnd(): void {
    const token = this.peek();
    if (token.kind !== 'end') this.fail(token, '"and", "or" or the end of the expression');
  }

  private and(depth: number): Policy {
    let left = this.unary(depth);
    while (this.isWord('and')) {
      this.at += 1;
      left = { kind: 'and', left, right: this.unary(depth) };
    }
    return left;
  }

  private unary(depth: number): Policy {
    const token = this.peek();
    if (token.kind === 'word' && token.text === 'not') {
      this.deeper(token, depth);
      this.at += 1;
      return { kind: 'not', operand: this.unary(depth + 1) };
    }
    if (token.kind === '(') {
      this.deeper(token, depth);
      this.at += 1;
      const inner = this.or(depth + 1);
      const close = this.peek();
      if (close.kind !== ')') this.fail(close, '"and", "or" or ")"');
      this.at += 1;
      return inner;
    }
    return this.primary();
  }

  private primary(): Policy {
    const token = this.peek();
    if (token.kind !== 'word' || policyKeywords.has(token.text)) this.fail(token, operandExpected);
    const name = this.name(token);
    this.at += 1;
    const next = this.peek();
    if (next.kind === '=') {
      this.at += 1;
      return { kind: 'equals', key: name, value: this.value() };
    }
    if (next.kind === 'word' && next.text === 'in') {
      this.at += 1;
      return { kind: 'in', key: name, values: this.list() };
    }
    return { kind: 'has', name };
  }

  private list(): string[] {
    const open = this.peek();
    if (open.kind !== '[') this.fail(open, '"[" and a list of quoted values');
    this.at += 1;
    const values = [this.value()];
    for (;;) {
      const next = this.peek();
      if (next.kind === ']') break;
      if (next.kind !== ',') this.fail(next, '"," or "]"');
      this.at += 1;
      if (values.length === policyBounds.values)
        this.fail(this.peek(), `at most ${policyBounds.values} values in one list`);
      values.push(this.value());
    }
    this.at += 1;
    return values;
  }

  private value(): string {
    const token = this.peek();
    if (token.kind !== 'string' || !attributeValuePattern.test(token.text)) this.fail(token, valueExpected);
    this.at += 1;
    return token.text;
  }

  private name(token: Token & { kind: 'word' }): string {
    if (!attributeNamePattern.test(token.text))
      this.fail(token, 'an attribute name of lower-case letters, digits and dashes');
    return token.text;
  }

  private deeper(token: Token, depth: number): void {
    if (depth >= policyBounds.depth) this.fail(token, `at most ${policyBounds.depth} nested "(" and "not"`);
  }

  private isWord(text: string): boolean {
    const token = this.peek();
    return token.kind === 'word' && token.text === text;
  }

  private peek(): Token {
    return this.tokens[Math.min(this.at, this.tokens.length - 1)] as Token;
  }

  private fail(token: Token, expected: string): never {
    throw new Stop({ column: token.column, expected, found: describeToken(token) });
  }
}
