/**
 * The direct paths inlets advertise, each for as long as its connection to the controller lasts, and
 * who hears of them: the members of the same project whose tickets grant the relay name the inlet
 * wants (its outlets). Pure bookkeeping; the server sends what it returns.
 */
import type { InletAdvert } from '../wire/protocol.ts';

/** Adverts one project may hold at once: a bound on what inlets' tickets can add. */
const maxPerProject = 4096;

export class InletAdverts {
  private readonly byProject = new Map<string, Map<string, InletAdvert>>();

  /** Records (or replaces) an inlet's advert; false past the bound. */
  set(projectId: string, advert: InletAdvert): boolean {
    const adverts = this.byProject.get(projectId) ?? new Map<string, InletAdvert>();
    if (!adverts.has(advert.inlet) && adverts.size >= maxPerProject) return false;
    adverts.set(advert.inlet, advert);
    this.byProject.set(projectId, adverts);
    return true;
  }

  /** Withdraws `advert` unless a newer one replaced it; true when it was withdrawn. */
  withdraw(projectId: string, advert: InletAdvert): boolean {
    const adverts = this.byProject.get(projectId);
    if (adverts?.get(advert.inlet) !== advert) return false;
    adverts.delete(advert.inlet);
    if (adverts.size === 0) this.byProject.delete(projectId);
    return true;
  }

  /** The adverts of the inlets that want one of `relays`. */
  forOutlet(projectId: string, relays: readonly string[]): InletAdvert[] {
    return [...(this.byProject.get(projectId)?.values() ?? [])].filter((advert) => relays.includes(advert.via));
  }
}
