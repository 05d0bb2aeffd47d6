/**
 * A configuration that needs a relay name the node's identity lacks is checked once more against a
 * fresh certificate before it is refused: an administrator may have granted the name since
 * (`portal project grant`), and the controller certifies what its store says the member is. Only that
 * misfit asks the controller; every other is refused as it is.
 */
import { InputError } from '../shared/errors.ts';
import type { StoredIdentity } from './identity-store.ts';

export interface FreshFit {
  /** The identity checked last: the fresh one when the controller was asked. */
  readonly identity: StoredIdentity;
  readonly misfit: InputError | undefined;
}

export async function fitWithFreshGrants(
  misfitOf: (identity: StoredIdentity) => InputError | undefined,
  identity: StoredIdentity,
  refresh: () => Promise<StoredIdentity>,
): Promise<FreshFit> {
  const first = misfitOf(identity);
  if (first?.code !== 'RELAY_NOT_GRANTED') return { identity, misfit: first };
  let fresh: StoredIdentity;
  try {
    fresh = await refresh();
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return {
      identity,
      misfit: new InputError(
        first.code,
        `${first.message}; the controller could not be asked for relay names granted since (${why})`,
        { hint: first.hint, cause: error },
      ),
    };
  }
  return { identity: fresh, misfit: misfitOf(fresh) };
}
