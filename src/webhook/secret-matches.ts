import { hash, timingSafeEqual } from 'node:crypto';

// The expected secrets' digests, made once per secret rather than on every request.
const expectedDigests = new Map<string, Buffer>();

/**
 * Compares a presented secret with the expected one in constant time, whatever their lengths:
 * both are hashed to the same length first. `crypto.hash` is the one-shot form of `createHash`,
 * without a Hash object per request.
 */
export function secretMatches(presented: string, expected: string): boolean {
  let b = expectedDigests.get(expected);
  if (!b) {
    b = hash('sha256', expected, 'buffer');
    // A handful of configured secrets; bounded all the same.
    if (expectedDigests.size >= 1_000) expectedDigests.clear();
    expectedDigests.set(expected, b);
  }
  return timingSafeEqual(hash('sha256', presented, 'buffer'), b);
}
