/**
 * What bounds the re-issue of expired certificates, which any peer may ask for: one-time challenges
 * that a request must carry in its signed part (a recorded request cannot be replayed), and the
 * limits per source address and overall on how many challenges are handed out, so how many signature
 * checks anonymous peers can cause. The limits are keyed by where a request comes from, never by a name
 * it gives, so nobody can spend another node's allowance. Pure but for the random challenges: time
 * comes in as an argument.
 */
import { randomBytes } from 'node:crypto';

export const reissueLimits = {
  /** How long a challenge may be used. */
  challengeLifetimeMs: 30_000,
  /** Challenges outstanding at once; the oldest goes first (more than `overall` hands out in a lifetime). */
  challengesOutstanding: 4096,
  /** Per source (an IPv4 address, an IPv6 /64: see sourceKeyOf): a burst of this many, then so many a second. */
  perSource: { burst: 20, perSecond: 2 },
  /** All sources together. */
  overall: { burst: 400, perSecond: 100 },
  /** Sources remembered at once (the quietest are forgotten first). */
  sourcesRemembered: 4096,
} as const;

/** Challenges handed out and not yet used. */
export class ChallengeBook {
  private readonly outstanding = new Map<string, number>();

  issue(now: number): string {
    const challenge = randomBytes(24).toString('base64url');
    this.outstanding.set(challenge, now + reissueLimits.challengeLifetimeMs);
    if (this.outstanding.size > reissueLimits.challengesOutstanding)
      this.outstanding.delete(this.outstanding.keys().next().value as string);
    return challenge;
  }

  /** True once per challenge issued here and still fresh; the challenge is used up either way. */
  redeem(challenge: string, now: number): boolean {
    const expiresAt = this.outstanding.get(challenge);
    this.outstanding.delete(challenge);
    return expiresAt !== undefined && now < expiresAt;
  }
}
