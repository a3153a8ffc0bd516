import { createHash, timingSafeEqual } from 'node:crypto';

// The expected secrets' digests, made once per secret rather than on every request.
const expectedDigests = new Map<string, Buffer>();

/** Compares a presented secret with the expected one in constant time, whatever their lengths. */
export function secretMatches(presented: string, expected: string): boolean {
  let b = expectedDigests.get(expected);
  if (!b) {
    b = createHash('sha256').update(expected).digest();
    // A handful of configured secrets; bounded all the same.
    if (expectedDigests.size >= 1_000) expectedDigests.clear();
    expectedDigests.set(expected, b);
  }
  const a = createHash('sha256').update(presented).digest();
  return timingSafeEqual(a, b);
}
