/**
 * Counts by key, for bounds such as "so many per member": a key is held only while its count is above
 * zero, so keys that come and go (sources, members, inlets) cannot grow the map without bound.
 */
export class CounterMap<K> {
  private readonly counts = new Map<K, number>();
  private sum = 0;

  /** The count of `key`; 0 when it holds none. */
  get(key: K): number {
    return this.counts.get(key) ?? 0;
  }

  /** Counts one more for `key`; returns its new count. */
  add(key: K): number {
    const count = this.get(key) + 1;
    this.counts.set(key, count);
    this.sum += 1;
    return count;
  }

  /** Counts one fewer for `key`, forgotten at zero (a key that holds none is left alone); returns what is left. */
  remove(key: K): number {
    const count = this.counts.get(key);
    if (count === undefined) return 0;
    this.sum -= 1;
    if (count > 1) {
      this.counts.set(key, count - 1);
      return count - 1;
    }
    this.counts.delete(key);
    return 0;
  }

  /** How many keys hold a count. */
  get size(): number {
    return this.counts.size;
  }

  /** The counts of every key together. */
  get total(): number {
    return this.sum;
  }
}
