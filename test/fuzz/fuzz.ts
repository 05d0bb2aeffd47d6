/**
 * The fuzz suite's harness. A property runs a few times inside the unit suite (a few seconds for the
 * whole folder) and long under `npm run fuzz`: PORTAL_FUZZ_SECONDS per property, or PORTAL_FUZZ_RUNS;
 * PORTAL_FUZZ_SEED replays a failure that a report printed. Each property's runs and seconds are kept
 * for the summary that scripts/fuzz.ts prints.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { InputError, ValidationError, formatProblem } from '../../src/shared/errors.ts';

export interface FuzzFigures {
  readonly target: string;
  readonly runs: number;
  readonly seconds: number;
  readonly failed: boolean;
}

/**
 * Kept on the global object: scripts/fuzz.ts and the test files may load this module through
 * different loaders (ES module and CommonJS), which would give each its own copy of a module variable.
 */
const registry = globalThis as { portalFuzzFigures?: FuzzFigures[] };
export const figures: FuzzFigures[] = (registry.portalFuzzFigures ??= []);

function positive(name: string): number | undefined {
  const value = Number(process.env[name]);
  return Number.isFinite(value) && value > 0 ? value : undefined;
}

/** True under `npm run fuzz`: properties run long, and tests give mocha no deadline of their own. */
export const longRun = positive('PORTAL_FUZZ_SECONDS') !== undefined || positive('PORTAL_FUZZ_RUNS') !== undefined;

function parameters(quickRuns: number): fc.Parameters<unknown> {
  const seconds = positive('PORTAL_FUZZ_SECONDS');
  const runs = positive('PORTAL_FUZZ_RUNS');
  const seed = positive('PORTAL_FUZZ_SEED');
  return {
    ...(seed === undefined ? {} : { seed }),
    ...(seconds === undefined
      ? { numRuns: runs ?? quickRuns }
      : { numRuns: runs ?? Number.MAX_SAFE_INTEGER, plugins: [fc.interruptAfterTimeLimit(seconds * 1000)] }),
  };
}

/** Checks `property` within the budget; throws fast-check's report (counterexample, seed, path) when it fails. */
export async function fuzz<Ts>(
  target: string,
  property: fc.IProperty<Ts> | fc.IAsyncProperty<Ts>,
  quickRuns: number,
): Promise<void> {
  const started = performance.now();
  const details = await fc.check(property as fc.IRawProperty<Ts>, parameters(quickRuns) as fc.Parameters<Ts>);
  figures.push({
    target,
    runs: details.numRuns,
    seconds: (performance.now() - started) / 1000,
    failed: details.failed,
  });
  if (details.failed) throw new Error(`${target}: ${await fc.asyncDefaultReportMessage(details)}`);
}

/** What an error is, for a failure message: class, code and first line. */
export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return `a thrown ${typeof error}: ${String(error)}`;
  const code = (error as { code?: unknown }).code;
  return `${error.constructor.name}${typeof code === 'string' ? ` ${code}` : ''}: ${error.message.split('\n')[0]}`;
}

/**
 * A rejection as a user must see it: the project's InputError with a stable code, a message without a
 * stack trace; a ValidationError's problems each located in `file` (line, column, JSON pointer).
 */
export function assertTypedRejection(error: unknown, file?: string): asserts error is InputError {
  assert.ok(error instanceof InputError, `expected the project's InputError, got ${describeError(error)}`);
  assert.match(error.code, /^[A-Z][A-Z0-9_]*$/, 'a stable code');
  assert.ok(error.message.length > 0, 'a message');
  assert.doesNotMatch(error.message, /\n\s+at /, 'no stack trace in the message');
  if (error instanceof ValidationError) {
    assert.ok(error.problems.length > 0, 'at least one problem');
    for (const problem of error.problems) {
      assert.equal(problem.file, file, 'the problem names the file');
      assert.ok(Number.isInteger(problem.line) && problem.line >= 1, `line ${problem.line}`);
      assert.ok(Number.isInteger(problem.column) && problem.column >= 1, `column ${problem.column}`);
      assert.ok(problem.pointer === '' || problem.pointer.startsWith('/'), `pointer ${problem.pointer}`);
      assert.ok(problem.message.length > 0, 'the problem says what is wrong');
      assert.doesNotMatch(
        formatProblem(problem),
        // eslint-disable-next-line no-control-regex
        /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/,
        'each problem is one printable line',
      );
    }
  }
}

/**
 * Runs `parse`, failing when it takes longer than `limitMs` twice in a row on the same input (a parser
 * that backtracks or loops); once alone is a pause of the machine (a collection, a busy neighbour).
 */
export function timed<T>(limitMs: number, parse: () => T): T {
  const started = performance.now();
  try {
    return parse();
  } finally {
    const took = performance.now() - started;
    if (took >= limitMs) {
      const again = performance.now();
      try {
        parse();
      } catch {
        // Only its time counts here: the first call's outcome is the one returned.
      }
      const retook = performance.now() - again;
      assert.ok(
        retook < limitMs,
        `one parse took ${took.toFixed(0)} ms, then ${retook.toFixed(0)} ms again (limit ${limitMs} ms)`,
      );
    }
  }
}

/**
 * Text a hostile or careless user might give: any code points (lone surrogates and NUL included) mixed
 * with pieces that mean something to a shell, YAML, JSON, templates or a terminal.
 */
export const hostileText = (maxPieces = 8): fc.Arbitrary<string> =>
  fc
    .array(
      fc.oneof(
        fc.string({ unit: 'binary', maxLength: 16 }),
        fc.string({ unit: 'grapheme-ascii', maxLength: 16 }),
        fc.constantFrom(
          '\n',
          '\r\n',
          '\r',
          '\0',
          '\t',
          ' ',
          '$(id)',
          '`id`',
          "'",
          '"',
          '\\',
          '%s',
          '%n',
          '{{x}}',
          '{{{x}}}',
          '${x}',
          '&a ',
          '*a',
          '!!binary ',
          '<<: ',
          '---\n',
          '...\n',
          '# ',
          ': ',
          '- ',
          '[',
          ']',
          '{',
          '}',
          ',',
          '?',
          '|',
          '>',
          '\u2028',
          '\u0085',
          '\ufeff',
          '\ud800',
          '\u001b[2J',
          '\u202e',
        ),
      ),
      { maxLength: maxPieces },
    )
    .map((pieces) => pieces.join(''));

/** Splits `bytes` into chunks at random points (empty chunks left out), as a socket might deliver them. */
export const chunked = (bytes: Buffer): fc.Arbitrary<Buffer[]> =>
  fc
    .uniqueArray(fc.integer({ min: 1, max: Math.max(1, bytes.length - 1) }), { maxLength: Math.min(8, bytes.length) })
    .map((cuts) => {
      const points = [0, ...cuts.filter((cut) => cut < bytes.length).sort((a, b) => a - b), bytes.length];
      return points
        .slice(1)
        .map((end, index) => bytes.subarray(points[index], end))
        .filter((chunk) => chunk.length > 0);
    });
