import assert from 'node:assert/strict';
import { attributeListProblems, parseAttribute } from '../../src/shared/policy/attributes.ts';
import {
  describePolicyProblem,
  evaluatePolicy,
  parsePolicy,
  policyAdmits,
  policyBounds,
  printPolicy,
  quotedPolicy,
  requirePolicy,
  type Policy,
} from '../../src/shared/policy.ts';

function read(text: string): Policy {
  const reading = parsePolicy(text);
  assert.ok(reading.ok, `"${text}" reads: ${reading.ok ? '' : describePolicyProblem(reading.problem)}`);
  return reading.policy;
}

function problem(text: string): string {
  const reading = parsePolicy(text);
  assert.ok(!reading.ok, `"${text}" is refused`);
  return describePolicyProblem(reading.problem);
}

describe('allow policies (src/shared/policy.ts)', () => {
  it('reads a bare name as before, keywords included, so every allow written so far keeps its meaning', () => {
    assert.deepEqual(read('postgres-inlet'), { kind: 'has', name: 'postgres-inlet' });
    assert.deepEqual(read('and'), { kind: 'has', name: 'and' });
    assert.equal(policyAdmits('postgres-inlet', ['postgres-inlet']), true);
    assert.equal(policyAdmits('postgres-inlet', ['postgres-outlet']), false);
    assert.equal(policyAdmits('postgres-inlet', []), false);
  });

  it('binds not tighter than and, and and tighter than or, each to the left', () => {
    assert.deepEqual(read('a or b and not c'), {
      kind: 'or',
      left: { kind: 'has', name: 'a' },
      right: {
        kind: 'and',
        left: { kind: 'has', name: 'b' },
        right: { kind: 'not', operand: { kind: 'has', name: 'c' } },
      },
    });
    assert.deepEqual(read('a and b and c'), read('(a and b) and c'));
    assert.notDeepEqual(read('a and b and c'), read('a and (b and c)'));
  });

  it('evaluates KEY = "v", KEY in [...], not and parentheses over a member\'s attributes', () => {
    const policy = 'team = "ops" and (env in ["prod", "staging"] or break-glass) and not contractor';
    assert.equal(policyAdmits(policy, ['team=ops', 'env=prod']), true);
    assert.equal(policyAdmits(policy, ['team=ops', 'env=staging']), true);
    assert.equal(policyAdmits(policy, ['team=ops', 'env=dev']), false);
    assert.equal(policyAdmits(policy, ['team=ops', 'env=dev', 'break-glass']), true);
    assert.equal(policyAdmits(policy, ['team=ops', 'env=prod', 'contractor']), false);
    assert.equal(policyAdmits(policy, ['team=dev', 'env=prod']), false);
    // A bare name is the bare attribute only: team is not team=ops.
    assert.equal(policyAdmits('team', ['team=ops']), false);
    assert.equal(policyAdmits('env = "prod"', ['env=Prod']), false, 'values are compared exactly');
  });

  it('denies what does not read, whatever the attributes', () => {
    assert.equal(policyAdmits('team = ', ['team=ops']), false);
    assert.equal(policyAdmits('', []), false);
  });

  it('names the column of a problem and what was expected there', () => {
    assert.equal(problem(''), 'column 1: expected an attribute name, "(" or "not", found the end of the expression');
    assert.equal(
      problem('team = ops'),
      'column 8: expected a quoted value such as "ops" (letters, digits, ".", "_", "-"), found "ops"',
    );
    assert.equal(problem('(a and b'), 'column 9: expected "and", "or" or ")", found the end of the expression');
    assert.equal(problem('a b'), 'column 3: expected "and", "or" or the end of the expression, found "b"');
    assert.equal(problem('a and or'), 'column 7: expected an attribute name, "(" or "not", found "or"');
    assert.equal(
      problem('env in "prod"'),
      'column 8: expected "[" and a list of quoted values, found the value "prod"',
    );
    assert.equal(problem('env in ["a" "b"]'), 'column 13: expected "," or "]", found the value "b"');
    assert.equal(
      problem('team = "ops'),
      'column 8: expected a closing " after the value, found the end of the expression',
    );
    assert.equal(
      problem('Team = "ops"'),
      'column 1: expected an attribute name of lower-case letters, digits and dashes, found "Team"',
    );
    assert.equal(
      problem('a & b'),
      'column 3: expected a name, a quoted value, "(", ")", "[", "]", "," or "=", found "&"',
    );
    assert.equal(
      problem('a and\nb'),
      'column 6: expected a name, a quoted value, "(", ")", "[", "]", "," or "=", found U+000A',
    );
    assert.equal(
      problem('x = "a b"'),
      'column 5: expected a quoted value such as "ops" (letters, digits, ".", "_", "-"), found the value "a b"',
    );
  });

  it('bounds the length, the nesting and the size of a list', () => {
    const long = `a${' or a'.repeat(policyBounds.length)}`;
    assert.match(
      problem(long),
      new RegExp(`^column ${policyBounds.length + 1}: expected at most ${policyBounds.length} characters`),
    );
    const deep = `${'('.repeat(policyBounds.depth)}a${')'.repeat(policyBounds.depth)}`;
    assert.deepEqual(read(deep), { kind: 'has', name: 'a' });
    assert.match(problem(`(${deep})`), /^column 17: expected at most 16 nested "\(" and "not"/);
    assert.match(problem(`${'not '.repeat(policyBounds.depth + 1)}a`), /^column 65: expected at most 16 nested/);
    const values = (n: number) => `k in [${Array.from({ length: n }, (_, i) => `"v${i}"`).join(', ')}]`;
    assert.equal(read(values(policyBounds.values)).kind, 'in');
    assert.match(problem(values(policyBounds.values + 1)), /expected at most 32 values in one list/);
  });

  it('prints an expression back to the same policy, with only the parentheses its shape needs', () => {
    for (const text of [
      'a',
      'a and b or c',
      'a and (b or c)',
      'not (a and b)',
      'not not a',
      'a and (b and c)',
      '(a or b) and c',
      'a or (b or c)',
      'team = "ops" and env in ["prod", "staging"]',
    ]) {
      const printed = printPolicy(read(text));
      assert.deepEqual(read(printed), read(text), `${text} → ${printed}`);
    }
    assert.equal(printPolicy(read('((a)) and  (b)')), 'a and b');
    assert.equal(printPolicy(read('a and (b or c)')), 'a and (b or c)');
  });

  it('refuses a bad expression as POLICY_INVALID with the column, exit 2', () => {
    assert.throws(
      () => requirePolicy('team = ', 'tcp-outlet.allow'),
      (error: Error & { code?: string; exitCode?: number }) =>
        error.code === 'POLICY_INVALID' &&
        error.exitCode === 2 &&
        error.message ===
          'tcp-outlet.allow is not an allow expression: column 8: expected a quoted value such as "ops" ' +
            '(letters, digits, ".", "_", "-"), found the end of the expression',
    );
    assert.equal(evaluatePolicy(requirePolicy('a', 'allow'), ['a']), true);
  });

  it('quotes a bare name as before and an expression in parentheses', () => {
    assert.equal(quotedPolicy('postgres-inlet'), '"postgres-inlet"');
    assert.equal(quotedPolicy('team = "ops"'), '(team = "ops")');
  });
});

describe('member attributes (src/shared/policy/attributes.ts)', () => {
  it('reads a bare name and a KEY=VALUE pair, and refuses anything else', () => {
    assert.deepEqual(parseAttribute('postgres-inlet'), {
      ok: true,
      attribute: { kind: 'name', name: 'postgres-inlet' },
    });
    assert.deepEqual(parseAttribute('region=eu-west-1'), {
      ok: true,
      attribute: { kind: 'pair', key: 'region', value: 'eu-west-1' },
    });
    for (const bad of ['', 'Team', 'team=', '=ops', 'team=o ps', 'team=a=b', 'team="ops"', 'a,b'])
      assert.equal(parseAttribute(bad).ok, false, bad);
  });

  it('gives each key once, and at most 16 attributes', () => {
    assert.deepEqual(attributeListProblems(['team=ops', 'env=prod', 'postgres-inlet']), []);
    assert.deepEqual(attributeListProblems(['team=ops', 'team=dev']), [
      '"team" is given twice; give each attribute or key once',
    ]);
    assert.deepEqual(attributeListProblems(['team', 'team=dev']), [
      '"team" is given twice; give each attribute or key once',
    ]);
    assert.match(attributeListProblems(Array.from({ length: 17 }, (_, i) => `a${i}`))[0] ?? '', /at most 16/);
  });
});
