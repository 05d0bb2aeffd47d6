import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  evaluatePolicy,
  parsePolicy,
  policyBounds,
  printPolicy,
  type Policy,
  type PolicyReading,
} from '../../src/shared/policy.ts';
import { policyKeywords } from '../../src/shared/policy/parse.ts';
import { fuzz, hostileText, timed } from './fuzz.ts';

const name = fc.stringMatching(/^[a-z0-9][a-z0-9-]{0,6}$/).filter((text) => !policyKeywords.has(text));
const value = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._-]{0,5}$/);

/** Any policy the grammar can express, within its depth bound. */
const policy: fc.Arbitrary<Policy> = fc.letrec<{ node: Policy }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    name.map((text): Policy => ({ kind: 'has', name: text })),
    fc.tuple(name, value).map(([key, v]): Policy => ({ kind: 'equals', key, value: v })),
    fc
      .tuple(name, fc.array(value, { minLength: 1, maxLength: 4 }))
      .map(([key, values]): Policy => ({ kind: 'in', key, values })),
    tie('node').map((operand): Policy => ({ kind: 'not', operand })),
    fc
      .tuple(fc.constantFrom('and' as const, 'or' as const), tie('node'), tie('node'))
      .map(([kind, left, right]): Policy => ({ kind, left, right })),
  ),
})).node;

/** Text near the grammar: its words and marks in any order, with names, values and hostile pieces. */
const soup = fc
  .array(
    fc.oneof(
      fc.constantFrom('and', 'or', 'not', 'in', '(', ')', '[', ']', ',', '=', '"', ' ', '\t', '"ops"', 'team', 'Team'),
      name,
      value.map((v) => `"${v}"`),
      hostileText(2),
    ),
    { maxLength: 40 },
  )
  .map((pieces) => pieces.join(' '));

/** Long and deep inputs, at and past the bounds. */
const large = fc.oneof(
  fc.integer({ min: 0, max: 40 }).map((n) => `${'('.repeat(n)}a${')'.repeat(n)}`),
  fc.integer({ min: 0, max: 40 }).map((n) => `${'not '.repeat(n)}a`),
  fc.integer({ min: 150, max: 400 }).map((n) => `a${' and a'.repeat(n)}`),
  fc.integer({ min: 0, max: 80 }).map((n) => `k in [${Array.from({ length: n }, () => '"v"').join(',')}]`),
);

function depthOf(policy: Policy): number {
  switch (policy.kind) {
    case 'not':
      return 1 + depthOf(policy.operand);
    case 'and':
    case 'or':
      return Math.max(depthOf(policy.left), depthOf(policy.right));
    default:
      return 0;
  }
}

function checkReading(text: string, reading: PolicyReading): void {
  if (!reading.ok) {
    const { column, expected, found } = reading.problem;
    assert.ok(Number.isInteger(column) && column >= 1, `column ${column}`);
    assert.ok(column <= Math.min(text.length, policyBounds.length) + 1, `column ${column} within the text`);
    assert.ok(expected.length > 0 && found.length > 0, 'says what was expected and what was found');
    // eslint-disable-next-line no-control-regex
    assert.doesNotMatch(`${expected} ${found}`, /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/, 'one printable line');
    return;
  }
  assert.ok(text.length <= policyBounds.length);
  assert.ok(depthOf(reading.policy) <= policyBounds.depth, 'within the nesting bound');
  const printed = printPolicy(reading.policy);
  const again = parsePolicy(printed);
  assert.ok(again.ok, `its print "${printed}" reads`);
  assert.deepEqual(again.policy, reading.policy, 'prints back to the same policy');
}

describe('fuzz: allow expressions (parsePolicy, printPolicy, evaluatePolicy)', () => {
  it('reads any text as a policy that prints back to itself or as a located problem, never a throw', async () => {
    await fuzz(
      'policy text',
      fc.property(fc.oneof(soup, hostileText(12), large), (text) => {
        checkReading(
          text,
          timed(250, () => parsePolicy(text)),
        );
      }),
      600,
    );
  });

  it('prints any policy to text that reads back the same and admits the same members', async () => {
    await fuzz(
      'policy round trip',
      fc.property(
        policy,
        fc.array(
          fc.oneof(
            name,
            fc.tuple(name, value).map(([k, v]) => `${k}=${v}`),
          ),
          { maxLength: 6 },
        ),
        (written, attributes) => {
          const text = printPolicy(written);
          fc.pre(text.length <= policyBounds.length);
          const reading = parsePolicy(text);
          // The printed parentheses count toward the nesting bound too: a policy past it is refused, not misread.
          fc.pre(reading.ok || !reading.problem.expected.includes('nested'));
          assert.ok(reading.ok, `"${text}" reads`);
          // A lone name prints as itself; anything else comes back node for node.
          assert.deepEqual(reading.policy, written);
          assert.equal(evaluatePolicy(reading.policy, attributes), evaluatePolicy(written, attributes));
        },
      ),
      400,
    );
  });
});
