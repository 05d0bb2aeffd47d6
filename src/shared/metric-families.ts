/**
 * Metrics read when scraped: the part that keeps a figure (a relay's splices, the admission limits'
 * refusals) counts it as it always did, and the registry reads it at each scrape, so the data path
 * pays nothing for being measured. A counter is read from a total that only grows.
 */
import { Counter, Gauge, type Registry } from 'prom-client';

/** A family's series as read: each label set with its value. */
export type Series<L extends string> = readonly (readonly [Partial<Record<L, string>>, number])[];

export interface ReadFamily<L extends string> {
  readonly registry: Registry;
  /** portal_…; a counter's ends in _total. */
  readonly name: string;
  readonly help: string;
  readonly labelNames?: readonly L[];
  readonly read: () => Series<L> | Promise<Series<L>>;
}

/** A counter read from totals kept elsewhere. */
export function readCounter<L extends string>(family: ReadFamily<L>): Counter<L> {
  return new Counter<L>({
    name: family.name,
    help: family.help,
    labelNames: family.labelNames ?? [],
    registers: [family.registry],
    async collect() {
      const series = await family.read();
      this.reset();
      for (const [labels, value] of series) this.inc(labels, value);
    },
  });
}

/** A gauge read from a figure kept elsewhere. */
export function readGauge<L extends string>(family: ReadFamily<L>): Gauge<L> {
  return new Gauge<L>({
    name: family.name,
    help: family.help,
    labelNames: family.labelNames ?? [],
    registers: [family.registry],
    async collect() {
      const series = await family.read();
      this.reset();
      for (const [labels, value] of series) this.set(labels, value);
    },
  });
}

/** One series without labels. */
export const single = (value: number): Series<never> => [[{}, value]];
