/**
 * The direct paths inlets advertise, each for as long as its connection to the controller lasts (a node
 * of several inlets advertises one per relay name it wants), and
 * who hears of them: the members of the same project whose certificate grants the relay name the inlet
 * wants AND whose attributes the inlet's allow admits (its outlets, as the inlet's own TLS check would
 * accept them). A member granted the relay name with any other attributes learns neither the addresses
 * nor the secret. Pure bookkeeping; the server sends what it returns.
 */
import type { PeerIdentity } from '../pki/identity.ts';
import { evaluatePolicy, type Policy } from '../shared/policy.ts';
import type { InletAdvert } from '../wire/protocol.ts';

/** Adverts one project may hold at once: a bound on what inlets' tickets can add. */
const maxPerProject = 4096;

/** An advert as the controller keeps it: what outlets receive, and the attribute the inlet allows. */
export interface AdvertEntry {
  readonly advert: InletAdvert;
  /** The inlet's tcp-inlet.allow: only members it admits hear of the advert. */
  readonly allow: string;
  /** `allow` read once, when the advert came. */
  readonly policy: Policy;
}

/**
 * Whether `member` hears of `entry`: its certificate grants the relay name the inlet wants, and the
 * inlet's allow admits its attributes.
 */
export function hearsOf(member: PeerIdentity, entry: AdvertEntry): boolean {
  return member.relays.includes(entry.advert.via) && evaluatePolicy(entry.policy, member.attributes);
}

/** An advert's place: the inlet node and the relay name it wants. */
const keyOf = (advert: Pick<InletAdvert, 'inlet' | 'via'>) => `${advert.inlet} ${advert.via}`;

export class InletAdverts {
  private readonly byProject = new Map<string, Map<string, AdvertEntry>>();

  /** The advert `inlet` holds now in `projectId` for the relay name `via`, if any. */
  get(projectId: string, inlet: string, via: string): AdvertEntry | undefined {
    return this.byProject.get(projectId)?.get(keyOf({ inlet, via }));
  }

  /** Records (or replaces) an inlet's advert for its via; false past the bound. */
  set(projectId: string, entry: AdvertEntry): boolean {
    const adverts = this.byProject.get(projectId) ?? new Map<string, AdvertEntry>();
    const key = keyOf(entry.advert);
    if (!adverts.has(key) && adverts.size >= maxPerProject) return false;
    adverts.set(key, entry);
    this.byProject.set(projectId, adverts);
    return true;
  }

  /** Withdraws `entry` unless a newer one replaced it; true when it was withdrawn. */
  withdraw(projectId: string, entry: AdvertEntry): boolean {
    const adverts = this.byProject.get(projectId);
    const key = keyOf(entry.advert);
    if (adverts?.get(key) !== entry) return false;
    adverts.delete(key);
    if (adverts.size === 0) this.byProject.delete(projectId);
    return true;
  }

  /** Adverts held now, in every project. */
  get size(): number {
    let size = 0;
    for (const adverts of this.byProject.values()) size += adverts.size;
    return size;
  }

  /** The adverts `member` hears of: see hearsOf. */
  forMember(member: PeerIdentity): InletAdvert[] {
    return [...(this.byProject.get(member.projectId)?.values() ?? [])]
      .filter((entry) => hearsOf(member, entry))
      .map((entry) => entry.advert);
  }
}
