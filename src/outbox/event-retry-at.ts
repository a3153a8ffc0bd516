/**
 * When an outbound event is tried again: exponential backoff with full jitter (a random time
 * up to `baseMs × 2^attempts`, at most `maxMs`), and no sooner than a `Retry-After` asked.
 */
export function eventRetryAt(input: {
  attempts: number;
  now: number;
  baseMs: number;
  maxMs: number;
  retryAfterMs: number;
  random: () => number;
}): number {
  const ceiling = Math.min(input.maxMs, input.baseMs * 2 ** Math.min(input.attempts, 40));
  const backoff = Math.round(input.random() * ceiling);
  return input.now + Math.max(backoff, input.retryAfterMs);
}
