/**
 * Reads a `Retry-After` header (RFC 9110 §10.2.3): either delay-seconds or an HTTP date.
 * Returns the wait in milliseconds, or undefined when the header is missing or unreadable,
 * so the caller falls back to its own backoff instead of trusting a bad value.
 *
 * @example
 * parseRetryAfter('2', Date.now()); // 2000
 * parseRetryAfter('Wed, 21 Oct 2026 07:28:00 GMT', Date.parse('2026-10-21T07:27:30Z')); // 30000
 */
export function parseRetryAfter(
  header: string | string[] | undefined,
  nowMs: number,
): number | undefined {
  const value = (Array.isArray(header) ? header[0] : header)?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Math.round(Number(value) * 1000);
  // An HTTP date always names its day and month; without letters, `Date.parse` reads '-1' as a year.
  const date = /[a-z]/i.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - nowMs);
}
