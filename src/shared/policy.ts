/**
 * Allow policies: who a portal's side admits, as a bare attribute name (postgres-inlet) or a small
 * boolean expression over a member's attributes (team = "ops" and env in ["prod", "staging"]). Deny by
 * default: an expression that does not read admits nobody. The grammar is in docs/policies.md. Pure.
 */
import { InputError } from './errors.ts';
import { policyBounds, type Policy, type PolicyProblem, type PolicyReading } from './policy/ast.ts';
import { evaluatePolicy, printPolicy } from './policy/evaluate.ts';
import { parsePolicy } from './policy/parse.ts';

export { policyBounds, evaluatePolicy, parsePolicy, printPolicy };
export type { Policy, PolicyProblem, PolicyReading };

/** A problem as one line of a message: "column 12: expected …, found …". */
export function describePolicyProblem(problem: PolicyProblem): string {
  return `column ${problem.column}: expected ${problem.expected}, found ${problem.found}`;
}

/** Whether `allow` admits a member carrying `attributes`; an expression that does not read admits nobody. */
export function policyAdmits(allow: string, attributes: readonly string[]): boolean {
  const read = parsePolicy(allow);
  return read.ok && evaluatePolicy(read.policy, attributes);
}

/** What is wrong with `allow`, as one line, or undefined when it reads. */
export function policyProblem(allow: string): string | undefined {
  const read = parsePolicy(allow);
  return read.ok ? undefined : describePolicyProblem(read.problem);
}

/** `allow` read, or an InputError POLICY_INVALID naming `where` and the column of the problem. */
export function requirePolicy(allow: string, where: string): Policy {
  const read = parsePolicy(allow);
  if (read.ok) return read.policy;
  throw new InputError(
    'POLICY_INVALID',
    `${where} is not an allow expression: ${describePolicyProblem(read.problem)}`,
    {
      hint:
        'give an attribute name, or an expression such as team = "ops" and env in ["prod", "staging"] ' +
        '(docs/policies.md)',
    },
  );
}

/** Whether `allow` is one bare attribute name: what allow was before expressions. */
export const isBareName = (allow: string): boolean => {
  const read = parsePolicy(allow);
  return read.ok && read.policy.kind === 'has' && read.policy.name === allow;
};

/**
 * `allow` as a message quotes it: a bare name in double quotes as before ("postgres-inlet"), an
 * expression in parentheses, where its own quotes read as they were written (team = "ops").
 */
export function quotedPolicy(allow: string): string {
  const shown = allow.length > 200 ? `${allow.slice(0, 200)}…` : allow;
  return isBareName(allow) ? `"${shown}"` : `(${shown})`;
}

/** A member's attributes as a message lists them. */
export function describeAttributes(attributes: readonly string[]): string {
  return attributes.length === 0 ? 'no attribute' : attributes.map((attribute) => `"${attribute}"`).join(', ');
}
