/**
 * What a member's attribute may be: a bare name (postgres-inlet) or a key and a value (team=ops). The
 * same text is on the ticket, in the store and in the certificate (a SAN URI portal://<project>/attr/team=ops),
 * so the characters are few enough that no layer quotes or escapes them. Pure.
 */

/** A bare attribute, or the key of a KEY=VALUE one: the names allow has always matched. */
export const attributeNamePattern = /^[a-z0-9][a-z0-9-]{0,62}$/;

/** The value of a KEY=VALUE attribute: letters of either case, digits, dot, underscore and dash. */
export const attributeValuePattern = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;

/** How many attributes one member may carry: certificates and wire fields stay small. */
export const maxAttributes = 16;

export const attributeSyntax =
  'NAME or KEY=VALUE: a name of lower-case letters, digits and dashes (such as postgres-inlet or team), ' +
  'and a value of letters, digits, dots, underscores and dashes (such as ops or eu-west-1)';

export type Attribute =
  | { readonly kind: 'name'; readonly name: string }
  | { readonly kind: 'pair'; readonly key: string; readonly value: string };

/** `text` read as an attribute, or what is wrong with it. */
export function parseAttribute(text: string): { ok: true; attribute: Attribute } | { ok: false; problem: string } {
  const equals = text.indexOf('=');
  if (equals < 0)
    return attributeNamePattern.test(text)
      ? { ok: true, attribute: { kind: 'name', name: text } }
      : { ok: false, problem: `"${shown(text)}" is not an attribute; give ${attributeSyntax}` };
  const key = text.slice(0, equals);
  const value = text.slice(equals + 1);
  if (!attributeNamePattern.test(key))
    return { ok: false, problem: `the key of "${shown(text)}" is not a name of lower-case letters, digits and dashes` };
  if (!attributeValuePattern.test(value))
    return {
      ok: false,
      problem: `the value of "${shown(text)}" is not letters, digits, dots, underscores and dashes (1 to 63)`,
    };
  return { ok: true, attribute: { kind: 'pair', key, value } };
}

/** The key an attribute claims: its name, or the key of its pair. */
const keyOf = (attribute: Attribute) => (attribute.kind === 'name' ? attribute.name : attribute.key);

/**
 * The problems of a member's list of attributes: each must read, at most `maxAttributes`, and each
 * key once (a member is in one team; `team` and `team=ops` together would be two answers to one question).
 */
export function attributeListProblems(list: readonly string[]): string[] {
  const problems: string[] = [];
  if (list.length > maxAttributes)
    problems.push(`${list.length} attributes; a member carries at most ${maxAttributes}`);
  const seen = new Set<string>();
  for (const text of list) {
    const read = parseAttribute(text);
    if (!read.ok) {
      problems.push(read.problem);
      continue;
    }
    const key = keyOf(read.attribute);
    if (seen.has(key)) problems.push(`"${key}" is given twice; give each attribute or key once`);
    seen.add(key);
  }
  return problems;
}

/** Text from a user, cut short and made printable for one line of a message. */
function shown(text: string): string {
  // eslint-disable-next-line no-control-regex
  const printable = text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029"\\]/g, '?');
  return printable.length > 80 ? `${printable.slice(0, 80)}…` : printable;
}
