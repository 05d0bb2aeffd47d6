/**
 * The address tickets name must be one nodes reach. A controller that listens on every address of its
 * machine would otherwise name 127.0.0.1 in its tickets, which works on this machine only and fails
 * on the others at enrollment, far from the flag that caused it: refused at start, the same way for
 * `portal enroll` and `portal controller start`.
 */
import { InputError } from '../shared/errors.ts';

const wildcardHosts = new Set(['0.0.0.0', '[::]', '::']);

/** Throws BAD_FLAG when `--listen` names every address and no --public-address says how nodes reach it. */
export function requirePublicAddressOnWildcard(
  listen: string,
  address: { readonly host: string; readonly port: number },
  publicAddress: string | undefined,
): void {
  if (!wildcardHosts.has(address.host) || publicAddress !== undefined) return;
  throw new InputError(
    'BAD_FLAG',
    `--listen ${listen} accepts nodes on every address, but without --public-address tickets would name ` +
      `127.0.0.1:${address.port}, which only this machine reaches`,
    { hint: `add --public-address HOST:${address.port || 'PORT'}, the name or address other machines dial` },
  );
}
