/**
 * CloudFormation intrinsic functions as plain data in their long form ({ Ref }, { 'Fn::Sub' }, …), so that
 * templates are ordinary typed objects; cfn-yaml.ts prints them in short form (!Ref, !Sub, …).
 */
export type Intrinsic =
  | { readonly Ref: string }
  | { readonly 'Fn::Sub': string | readonly [string, Readonly<Record<string, CfnValue>>] }
  | { readonly 'Fn::GetAtt': readonly [string, string] }
  | { readonly 'Fn::Base64': CfnValue }
  | { readonly 'Fn::Join': readonly [string, readonly CfnValue[]] }
  | { readonly 'Fn::Equals': readonly [CfnValue, CfnValue] }
  | { readonly 'Fn::Not': readonly [CfnValue] }
  | { readonly 'Fn::If': readonly [string, CfnValue, CfnValue] }
  | { readonly 'Fn::Select': readonly [string, CfnValue] }
  | { readonly 'Fn::Split': readonly [string, CfnValue] };

export type CfnValue =
  string | number | boolean | Intrinsic | readonly CfnValue[] | { readonly [key: string]: CfnValue };

export const ref = (logicalId: string): Intrinsic => ({ Ref: logicalId });
export const sub = (template: string): Intrinsic => ({ 'Fn::Sub': template });
export const getAtt = (logicalId: string, attribute: string): Intrinsic => ({ 'Fn::GetAtt': [logicalId, attribute] });
export const base64 = (value: CfnValue): Intrinsic => ({ 'Fn::Base64': value });
export const join = (delimiter: string, values: readonly CfnValue[]): Intrinsic => ({
  'Fn::Join': [delimiter, values],
});
export const equals = (a: CfnValue, b: CfnValue): Intrinsic => ({ 'Fn::Equals': [a, b] });
export const not = (condition: CfnValue): Intrinsic => ({ 'Fn::Not': [condition] });
/** `whenTrue` where the condition named `condition` holds, else `whenFalse`. */
export const fnIf = (condition: string, whenTrue: CfnValue, whenFalse: CfnValue): Intrinsic => ({
  'Fn::If': [condition, whenTrue, whenFalse],
});

/** The names a `${…}` reference in a Fn::Sub template points at (escaped `${!…}` excluded). */
export function subReferences(template: string): string[] {
  return [...template.matchAll(/\$\{([^!}][^}]*)\}/g)].map((match) => match[1] as string);
}
export const select = (index: number, list: CfnValue): Intrinsic => ({ 'Fn::Select': [String(index), list] });
export const split = (delimiter: string, value: CfnValue): Intrinsic => ({ 'Fn::Split': [delimiter, value] });
/** Fn::Sub with variables defined beside the template, for values a reference cannot name. */
export const subWith = (template: string, variables: Readonly<Record<string, CfnValue>>): Intrinsic =>
  Object.keys(variables).length === 0 ? sub(template) : { 'Fn::Sub': [template, variables] };
