/** `--attribute` and `--relay`, repeated: the comma-joined form in which tickets, grants and retire carry them. */
import { InputError } from '../shared/errors.ts';

/**
 * The --relay names as the ticket request carries them, comma-joined: one name per flag (the
 * controller checks the names, that each comes once, and how many there are).
 */
export function relayFlags(names: readonly string[]): string {
  const joined = names.find((name) => name.includes(','));
  if (joined !== undefined)
    throw new InputError('BAD_FLAG', `--relay ${joined} holds a comma`, {
      hint: `give one name per --relay: ${joined
        .split(',')
        .map((name) => `--relay ${name}`)
        .join(' ')}`,
    });
  return names.join(',');
}

/**
 * The --attribute values as the ticket request carries them, comma-joined like --relay (the controller
 * checks each, that each key comes once, and how many there are).
 */
export function attributeFlags(attributes: readonly string[]): string {
  const joined = attributes.find((attribute) => attribute.includes(','));
  if (joined !== undefined)
    throw new InputError('BAD_FLAG', `--attribute ${joined} holds a comma`, {
      hint: `give one attribute per --attribute: ${joined
        .split(',')
        .map((attribute) => `--attribute ${attribute}`)
        .join(' ')}`,
    });
  return attributes.join(',');
}
