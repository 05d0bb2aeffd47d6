/**
 * An outlet registered on the relay, and which of a relay name's outlets a new splice goes to: the
 * least busy, turning among equals, so that the outlets of a pool share an inlet's sessions and streams.
 */
import type { Policy } from '../shared/policy.ts';
import type { RelayEvent } from '../wire/protocol.ts';

export interface Registration {
  readonly nodeId: string;
  /**
   * The registering member's attributes, from its certificate: an inlet is paired only with an outlet
   * its allow admits.
   */
  readonly attributes: readonly string[];
  readonly allow: string;
  /** `allow` read once, at registration. */
  readonly policy: Policy;
  readonly push: (event: RelayEvent) => void;
  pendingDials: number;
  /** Splices it carries now: with the dials, what choosing the least busy outlet counts. */
  carrying: number;
  unanswered: number;
  suspendedUntil: number;
}

/**
 * The least busy outlet (splices carried and dials waiting) among those with fewer than
 * `pendingPerOutlet` dials waiting and answering their dials; a suspended one only when none is. Of
 * equals, the first from `turn` on (which the caller advances each time).
 */
export function chooseOutlet(
  outlets: readonly Registration[],
  pendingPerOutlet: number,
  turn: number,
): Registration | undefined {
  const now = Date.now();
  const open = outlets.filter((outlet) => outlet.pendingDials < pendingPerOutlet);
  const answering = open.filter((outlet) => outlet.suspendedUntil <= now);
  const candidates = answering.length > 0 ? answering : open;
  const busy = (outlet: Registration) => outlet.carrying + outlet.pendingDials;
  let best: Registration | undefined;
  for (let index = 0; index < candidates.length; index += 1) {
    const outlet = candidates[(turn + index) % candidates.length]!;
    if (!best || busy(outlet) < busy(best)) best = outlet;
  }
  return best;
}
