/**
 * What an inlet's adverts may make an outlet dial. Any admitted inlet names the addresses of its direct
 * path, so without a bound it could make the outlet probe its own network: every address and port of
 * its choosing, again with each new advert. So one advert is dialled at most at its first
 * directAddressesPerAdvert distinct addresses, and one inlet may make the outlet dial at most
 * directDistinctAddresses distinct addresses in a window of directAddressWindowMs; addresses it named
 * before stay dialable, new ones past the budget are not dialled until the window has moved on.
 * Pure bookkeeping: the dialer asks it which addresses to dial.
 */
import { directAddressWindowMs, directAddressesPerAdvert, directDistinctAddresses } from './limits.ts';

export interface DialBudgetLimits {
  /** @default directAddressesPerAdvert */
  readonly perAdvert: number;
  /** @default directDistinctAddresses */
  readonly distinct: number;
  /** @default directAddressWindowMs */
  readonly windowMs: number;
}

export const defaultDialBudget: DialBudgetLimits = {
  perAdvert: directAddressesPerAdvert,
  distinct: directDistinctAddresses,
  windowMs: directAddressWindowMs,
};

export class DirectDialBudget {
  /** Per inlet: each address it made the outlet dial, and when first in this window. */
  private readonly dialled = new Map<string, Map<string, number>>();

  constructor(private readonly limits: DialBudgetLimits = defaultDialBudget) {}

  /**
   * The addresses of `addresses` the outlet may dial for `inlet` at `now`, in their order, and how many
   * it left out; the ones returned are counted against the inlet's budget.
   */
  allow(inlet: string, addresses: readonly string[], now: number): { dial: string[]; withheld: number } {
    const known = this.dialled.get(inlet) ?? new Map<string, number>();
    for (const [address, at] of known) if (now - at >= this.limits.windowMs) known.delete(address);
    const dial: string[] = [];
    const distinct = [...new Set(addresses)];
    for (const address of distinct.slice(0, this.limits.perAdvert)) {
      if (known.has(address)) dial.push(address);
      else if (known.size < this.limits.distinct) {
        known.set(address, now);
        dial.push(address);
      }
    }
    if (known.size > 0) this.dialled.set(inlet, known);
    else this.dialled.delete(inlet);
    return { dial, withheld: addresses.length - dial.length };
  }
}
