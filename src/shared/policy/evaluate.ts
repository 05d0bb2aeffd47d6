/** What an allow expression says of a member's attributes, and the expression printed back. Pure. */
import type { Policy } from './ast.ts';

/** Whether a member carrying `attributes` is admitted: true only where the expression says so. */
export function evaluatePolicy(policy: Policy, attributes: readonly string[]): boolean {
  switch (policy.kind) {
    case 'has':
      return attributes.includes(policy.name);
    case 'equals':
      return attributes.includes(`${policy.key}=${policy.value}`);
    case 'in':
      return policy.values.some((value) => attributes.includes(`${policy.key}=${value}`));
    case 'not':
      return !evaluatePolicy(policy.operand, attributes);
    case 'and':
      return evaluatePolicy(policy.left, attributes) && evaluatePolicy(policy.right, attributes);
    case 'or':
      return evaluatePolicy(policy.left, attributes) || evaluatePolicy(policy.right, attributes);
  }
}

/**
 * The expression in its canonical text, with the parentheses its shape needs and no others: parsing
 * it gives the same Policy back.
 */
export function printPolicy(policy: Policy): string {
  switch (policy.kind) {
    case 'has':
      return policy.name;
    case 'equals':
      return `${policy.key} = "${policy.value}"`;
    case 'in':
      return `${policy.key} in [${policy.values.map((value) => `"${value}"`).join(', ')}]`;
    case 'not':
      return `not ${grouped(policy.operand, policy.operand.kind === 'and' || policy.operand.kind === 'or')}`;
    case 'and':
      return `${grouped(policy.left, policy.left.kind === 'or')} and ${grouped(policy.right, isBinary(policy.right))}`;
    case 'or':
      return `${printPolicy(policy.left)} or ${grouped(policy.right, policy.right.kind === 'or')}`;
  }
}

const isBinary = (policy: Policy) => policy.kind === 'and' || policy.kind === 'or';

const grouped = (policy: Policy, parenthesize: boolean) =>
  parenthesize ? `(${printPolicy(policy)})` : printPolicy(policy);
