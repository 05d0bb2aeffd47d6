/**
 * Which of a relay name's outlets an inlet may be paired with: each one's allow admits the other's
 * attributes. Pure; a refusal comes back as the error the inlet is told and the detail the trail keeps.
 */
import type { PeerIdentity } from '../pki/identity.ts';
import { InputError } from '../shared/errors.ts';
import { evaluatePolicy, isBareName, quotedPolicy, type Policy } from '../shared/policy.ts';

/** What pairing needs of a registered outlet. */
export interface PairedOutlet {
  /** Its attributes, from its certificate. */
  readonly attributes: readonly string[];
  /** Its allow, read. */
  readonly policy: Policy;
}

export type Pairing<T extends PairedOutlet> =
  | { readonly ok: true; readonly outlets: readonly T[] }
  | {
      readonly ok: false;
      /** True when no outlet allows the inlet (the outlets hear of it); false when the inlet refused them all. */
      readonly byOutlets: boolean;
      /** For the audit trail. */
      readonly detail: string;
      readonly error: InputError;
    };

/** Whether `inlet`, which requires `allow` (read: `policy`) of its outlet, pairs with `outlet`. */
export const pairs = (inlet: PeerIdentity, policy: Policy, outlet: PairedOutlet): boolean =>
  evaluatePolicy(outlet.policy, inlet.attributes) && evaluatePolicy(policy, outlet.attributes);

/** The outlets of `relay` that `inlet` pairs with, or why there is none. */
export function pairInlet<T extends PairedOutlet>(
  inlet: PeerIdentity,
  relay: string,
  allow: string,
  policy: Policy,
  outlets: readonly T[],
): Pairing<T> {
  const allowing = outlets.filter((outlet) => evaluatePolicy(outlet.policy, inlet.attributes));
  if (allowing.length === 0)
    return {
      ok: false,
      byOutlets: true,
      detail: 'no outlet allows its attributes',
      error: new InputError(
        'PEER_NOT_ALLOWED',
        `no outlet of the relay "${relay}" allows this node's attribute (${inlet.attributes.join(', ') || 'none'})`,
        { hint: "check that the outlet's allow admits this node's ticket attributes" },
      ),
    };
  const allowed = allowing.filter((outlet) => pairs(inlet, policy, outlet));
  if (allowed.length > 0) return { ok: true, outlets: allowed };
  // These outlets allow this node, which would see their certificates anyway: naming what they carry is no leak.
  const carried = [...new Set(allowing.flatMap((outlet) => outlet.attributes))]
    .slice(0, 8)
    .map((attribute) => `"${attribute}"`);
  const which = isBareName(allow)
    ? `carries the attribute "${allow}" this inlet allows`
    : `is admitted by this inlet's allow ${quotedPolicy(allow)}`;
  return {
    ok: false,
    byOutlets: false,
    detail: `no outlet that allows it ${which}`,
    error: new InputError(
      'PEER_NOT_ALLOWED',
      `no outlet of the relay "${relay}" that allows this node ${which} ` +
        `(they carry ${carried.join(', ') || 'no attribute'})`,
      {
        hint: isBareName(allow)
          ? `check that the outlet's ticket attribute equals the inlet's allow ("${allow}")`
          : `check that the inlet's allow ${quotedPolicy(allow)} admits the outlet's ticket attributes`,
      },
    ),
  };
}
