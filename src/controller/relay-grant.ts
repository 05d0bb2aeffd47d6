/**
 * The relay right a ticket grants: the relay names an outlet node may register. A request and the
 * store carry it as one text, the names comma-joined (names hold no comma); the certificate as one
 * URI per name.
 */
import { InputError } from '../shared/errors.ts';
import { relaysPerTicket } from '../shared/limits.ts';

const namePattern = /^[a-z0-9][a-z0-9-]{0,62}$/;

function badFlag(flag: string, expected: string): InputError {
  return new InputError('BAD_FLAG', `${flag} is not valid`, { hint: `give ${expected}` });
}

/**
 * The relay names a ticket request grants: `relay` is one name or several comma-joined (what
 * `portal project ticket --relay a --relay b` sends; a controller of an earlier version refuses the
 * comma, so it never grants less than was asked). Each a name, each once, at most relaysPerTicket.
 */
export function relayNames(relay: string | undefined): string[] {
  if (relay === undefined) return [];
  const names = relay.split(',');
  const bad = names.find((name) => !namePattern.test(name));
  if (bad !== undefined)
    throw names.length === 1
      ? badFlag('--relay', 'a name of lower-case letters, digits and dashes, such as postgres')
      : new InputError('BAD_FLAG', `--relay ${JSON.stringify(bad.slice(0, 80))} is not valid`, {
          hint: 'give each --relay a name of lower-case letters, digits and dashes, such as postgres',
        });
  const twice = names.find((name, index) => names.indexOf(name) !== index);
  if (twice !== undefined)
    throw new InputError('BAD_FLAG', `--relay ${twice} is given twice`, { hint: 'give each relay name once' });
  if (names.length > relaysPerTicket)
    throw new InputError('BAD_FLAG', `--relay is given ${names.length} times`, {
      hint: `a ticket grants at most ${relaysPerTicket} relay names: issue another ticket for the rest`,
    });
  return names;
}

/** The relay names a stored grant (a comma-joined list, or null) holds. */
export const relaysOfGrant = (grant: string | null): string[] => (grant ? grant.split(',') : []);
