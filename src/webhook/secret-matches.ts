import { createHash, timingSafeEqual } from 'node:crypto';

/** Compares a presented secret with the expected one in constant time, whatever their lengths. */
export function secretMatches(presented: string, expected: string): boolean {
  const a = createHash('sha256').update(presented).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}
