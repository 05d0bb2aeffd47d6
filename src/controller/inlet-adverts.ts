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
  /** Adverts inlets made to other controller replicas (replica-live-state.ts), by project and place. */
  private readonly elsewhere = new Map<string, Map<string, AdvertEntry>>();
  private readonly listeners = new Set<(projectId: string) => void>();

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
    this.changedHere(projectId);
    return true;
  }

  /** Withdraws `entry` unless a newer one replaced it; true when it was withdrawn. */
  withdraw(projectId: string, entry: AdvertEntry): boolean {
    const adverts = this.byProject.get(projectId);
    const key = keyOf(entry.advert);
    if (adverts?.get(key) !== entry) return false;
    adverts.delete(key);
    if (adverts.size === 0) this.byProject.delete(projectId);
    this.changedHere(projectId);
    return true;
  }

  /** The adverts inlets made to this controller itself in `projectId`. */
  heldHere(projectId: string): AdvertEntry[] {
    return [...(this.byProject.get(projectId)?.values() ?? [])];
  }

  projectsHeldHere(): string[] {
    return [...this.byProject.keys()];
  }

  projectsElsewhere(): string[] {
    return [...this.elsewhere.keys()];
  }

  /**
   * The adverts other replicas hold in `projectId` now, replacing those they held before: what came
   * (or changed) and what went, for their hearers to be told.
   */
  setElsewhere(projectId: string, entries: readonly AdvertEntry[]): { came: AdvertEntry[]; went: AdvertEntry[] } {
    const before = this.elsewhere.get(projectId) ?? new Map<string, AdvertEntry>();
    const after = new Map(entries.map((entry) => [keyOf(entry.advert), entry]));
    const same = (a: AdvertEntry, b: AdvertEntry) =>
      JSON.stringify([a.advert, a.allow]) === JSON.stringify([b.advert, b.allow]);
    const came = [...after]
      .filter(([key, entry]) => !before.has(key) || !same(before.get(key)!, entry))
      .map(([, e]) => e);
    const went = [...before]
      .filter(([key, entry]) => !after.has(key) || !same(after.get(key)!, entry))
      .map(([, e]) => e);
    if (after.size === 0) this.elsewhere.delete(projectId);
    else this.elsewhere.set(projectId, after);
    return { came, went };
  }

  onChangedHere(listener: (projectId: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changedHere(projectId: string): void {
    for (const listener of this.listeners) listener(projectId);
  }

  /** Adverts held now, in every project. */
  get size(): number {
    let size = 0;
    for (const adverts of this.byProject.values()) size += adverts.size;
    return size;
  }

  /** The adverts `member` hears of (see hearsOf): those made here, and those made to other replicas. */
  forMember(member: PeerIdentity): InletAdvert[] {
    const here = this.byProject.get(member.projectId) ?? new Map<string, AdvertEntry>();
    const there = [...(this.elsewhere.get(member.projectId) ?? new Map<string, AdvertEntry>())]
      .filter(([key]) => !here.has(key))
      .map(([, entry]) => entry);
    return [...here.values(), ...there].filter((entry) => hearsOf(member, entry)).map((entry) => entry.advert);
  }
}
