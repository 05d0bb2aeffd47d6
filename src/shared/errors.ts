/**
 * Typed errors shared by every part of Portal. Each carries a stable `code`, a `hint` that tells the
 * user what to do, and the process exit code the CLI uses: 2 for bad input, 1 for a run-time failure.
 */
import type { ErrorCode } from './error-codes.ts';

export interface PortalErrorOptions {
  /** What the user can do about it. */
  readonly hint?: string;
  /** The lower-level error this one wraps. */
  readonly cause?: unknown;
}

export abstract class PortalError extends Error {
  abstract readonly exitCode: 1 | 2;

  readonly code: ErrorCode;
  readonly hint: string | undefined;

  constructor(code: ErrorCode, message: string, options: PortalErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.hint = options.hint;
  }
}

/** The user gave something wrong: a file, a flag, a value. Exit code 2. */
export class InputError extends PortalError {
  readonly exitCode = 2 as const;
}

/** Something failed while running: I/O, a peer, the network. Exit code 1. */
export class RuntimeFailure extends PortalError {
  readonly exitCode = 1 as const;
}

/** One problem found in an input file, located as precisely as the source allows. */
export interface Problem {
  readonly file: string;
  readonly line: number;
  readonly column: number;
  /** JSON pointer of the value at fault ("" for the whole document). */
  readonly pointer: string;
  readonly message: string;
}

export function formatProblem(problem: Problem): string {
  const where = `${problem.file}:${problem.line}:${problem.column}`;
  const pointer = problem.pointer === '' ? '/' : problem.pointer;
  return printable(`${where}: ${pointer}: ${problem.message}`);
}

const escapes: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

// eslint-disable-next-line no-control-regex
const unprintable = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;

/**
 * Text from an input file made safe for one line of a terminal: control characters and line
 * separators (a key may hold a newline or an escape sequence) are shown as escapes, not obeyed.
 */
export function printable(text: string): string {
  return text.replace(
    unprintable,
    (character) => escapes[character] ?? `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** Every problem of one or more input files, reported together. */
export class ValidationError extends InputError {
  readonly problems: readonly Problem[];

  constructor(
    problems: readonly Problem[],
    hint = 'fix the lines above and run the command again; nothing was written',
  ) {
    const count = problems.length === 1 ? '1 problem' : `${problems.length} problems`;
    super('INVALID_INPUT', `${count}:\n${problems.map(formatProblem).join('\n')}`, { hint });
    this.problems = problems;
  }
}
