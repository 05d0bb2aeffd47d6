/** The typed form of an allow expression: what the parser returns and the evaluator reads. */

/** Limits on an expression: any input is parsed in bounded time, space and stack. */
export const policyBounds = {
  /** Characters in one expression. */
  length: 1024,
  /** Nesting of parentheses and `not`. */
  depth: 16,
  /** Values in one `in [...]` list. */
  values: 32,
} as const;

export type Policy =
  /** The member carries the bare attribute `name`. */
  | { readonly kind: 'has'; readonly name: string }
  /** The member carries `key=value`. */
  | { readonly kind: 'equals'; readonly key: string; readonly value: string }
  /** The member carries `key=v` for one of `values`. */
  | { readonly kind: 'in'; readonly key: string; readonly values: readonly string[] }
  | { readonly kind: 'not'; readonly operand: Policy }
  | { readonly kind: 'and' | 'or'; readonly left: Policy; readonly right: Policy };

/** Where an expression is wrong: the 1-based column, what was expected there and what was found. */
export interface PolicyProblem {
  readonly column: number;
  readonly expected: string;
  readonly found: string;
}

export type PolicyReading =
  { readonly ok: true; readonly policy: Policy } | { readonly ok: false; readonly problem: PolicyProblem };
