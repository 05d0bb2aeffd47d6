/**
 * Comparing a secret a peer presented with the one expected, in time that does not depend on where
 * they first differ: a peer that measured the answer could otherwise guess the secret byte by byte.
 */
import { timingSafeEqual } from 'node:crypto';

/**
 * Whether `given` is `expected`. Strings are compared as their UTF-8 bytes. Different lengths are
 * unequal at once: every secret Portal compares has a fixed length, so the length gives nothing away.
 */
export function sameSecret(given: Buffer | string, expected: Buffer | string): boolean {
  const a = typeof given === 'string' ? Buffer.from(given) : given;
  const b = typeof expected === 'string' ? Buffer.from(expected) : expected;
  return a.length === b.length && timingSafeEqual(a, b);
}
