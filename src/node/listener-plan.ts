/**
 * How a reload gives its new inlets their listeners without dropping a client of anything that stays:
 * an inlet that listens where a replaced or removed one did takes over that one's listener, so no
 * client finds the port closed in between (with port 0, only the same portal keeps the port it had);
 * listeners on addresses nothing running holds are bound before anything running is touched (a taken
 * address then refuses the whole reload); the rest, on addresses that overlap those of the inlets
 * going away, only once those stopped listening. Pure.
 */
import { parseHostPort } from '../shared/address.ts';
import { listenAddressesOverlap } from './config-rules.ts';
import type { InletPortal } from './portals.ts';

export interface InletListenerPlan {
  readonly inlet: InletPortal;
  /** The inlet going away whose clients' listener it takes over (same `from`), if any. */
  readonly donor: string | undefined;
  /** When its clients' listener is bound: before anything changes, or once the inlets going away stopped. */
  readonly listener: 'taken-over' | 'early' | 'late';
  /** When its direct path is bound; none with the direct path off. */
  readonly direct: 'early' | 'late' | 'none';
}

export function planListeners(coming: readonly InletPortal[], going: readonly InletPortal[]): InletListenerPlan[] {
  const held = going.flatMap((inlet) => [inlet.from, ...(inlet.direct === false ? [] : [inlet.direct])]);
  const clashes = (address: string) => held.some((other) => listenAddressesOverlap(other, address));
  const taken = new Set<string>();
  return coming.map((inlet) => {
    // Port 0 asks for any port: only the same portal keeps the one it had; another gets its own.
    const donor = going.find(
      (other) =>
        other.from === inlet.from && !taken.has(other.name) && (other.name === inlet.name || !anyPort(inlet.from)),
    );
    if (donor) taken.add(donor.name);
    return {
      inlet,
      donor: donor?.name,
      listener: donor ? 'taken-over' : clashes(inlet.from) ? 'late' : 'early',
      direct: inlet.direct === false ? 'none' : clashes(inlet.direct) ? 'late' : 'early',
    };
  });
}

function anyPort(address: string): boolean {
  const parsed = parseHostPort(address, true);
  return parsed.ok && parsed.address.port === 0;
}
