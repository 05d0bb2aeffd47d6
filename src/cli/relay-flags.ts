/** `--relay NAME`, repeated: the form in which tickets and grants carry relay names. */
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
