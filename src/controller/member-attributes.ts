/**
 * The attributes a ticket grants and a member carries: a request and the store carry them as one
 * text, comma-joined (NAME and KEY=VALUE hold no comma, see src/shared/policy/attributes.ts); the
 * certificate as one URI each. Pure.
 */
import { InputError } from '../shared/errors.ts';
import { attributeListProblems, attributeSyntax } from '../shared/policy/attributes.ts';

/**
 * The attributes a ticket request grants: `attribute` is one or several comma-joined (what
 * `portal project ticket --attribute a --attribute team=ops` sends; a controller of an earlier version
 * refuses the comma, so it never grants less than was asked). Each readable, each key once.
 */
export function requestedAttributes(attribute: string): string[] {
  if (attribute === '') return [];
  const list = attribute.split(',');
  const problems = attributeListProblems(list);
  if (problems.length > 0)
    throw new InputError('BAD_FLAG', `--attribute is not valid: ${problems.join('; ')}`, {
      hint: `give each --attribute as ${attributeSyntax}`,
    });
  return list;
}

/** A ticket's or member's row as the store keeps it, before and after the migration 0006-attributes. */
export interface AttributeColumns {
  readonly attribute: string | null;
  readonly attributes?: string | null;
}

/** The attributes a stored row carries: the list, or the one attribute of a row written before lists. */
export function attributesOfRow(row: AttributeColumns): string[] {
  const joined = row.attributes ?? row.attribute ?? '';
  return joined === '' ? [] : joined.split(',');
}

/** The columns that store `attributes`: the list, and its first for readers of the single column. */
export function attributeColumns(attributes: readonly string[]): { attribute: string; attributes: string | null } {
  return { attribute: attributes[0] ?? '', attributes: attributes.length > 0 ? attributes.join(',') : null };
}
