/**
 * Token buckets by key (a source address, a member): `perSecond` tokens refill each second up to
 * `burst`. Full buckets carry no information and are forgotten, so the map holds only keys that spent
 * something lately, and a flood of new keys is bounded by `maxKeys` (the stalest go first).
 */
import { rateLimiterKeys } from './limits.ts';

export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    private readonly perSecond: number,
    private readonly burst: number,
    private readonly maxKeys = rateLimiterKeys,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Takes one token for `key` at `now` (of the limiter's own clock unless given); false when its bucket is empty. */
  take(key: string, now = this.now()): boolean {
    const bucket = this.buckets.get(key);
    const tokens = bucket
      ? Math.min(this.burst, bucket.tokens + ((now - bucket.at) / 1000) * this.perSecond)
      : this.burst;
    if (bucket && tokens < 1) {
      bucket.tokens = tokens;
      bucket.at = now;
      return false;
    }
    // Re-inserted so that the map's order is the order of last use.
    this.buckets.delete(key);
    this.buckets.set(key, { tokens: tokens - 1, at: now });
    this.prune(now);
    return true;
  }

  private prune(now: number): void {
    const refillMs = (this.burst / this.perSecond) * 1000;
    for (const [key, bucket] of this.buckets) {
      if (this.buckets.size <= this.maxKeys && now - bucket.at < refillMs) break;
      this.buckets.delete(key);
    }
  }
}
