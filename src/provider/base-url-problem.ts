/** What the config and `createMessagingClient` both say of a base URL that is not an http(s) URL. */
export const notAnHttpUrl = 'must be an http(s) URL such as https://api.example.com/v1';
/** What they both say of a base URL whose last path segment is not the version `v1`. */
export const notEndingWithV1 = 'must end with /v1';

/**
 * Why `url` cannot be the service's base URL, or undefined when it can: it must be http(s) and
 * its last path segment must be `v1` (a trailing slash is allowed), or every path is wrong.
 */
export function baseUrlProblem(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return notAnHttpUrl;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return notAnHttpUrl;
  if (!parsed.pathname.replace(/\/+$/, '').endsWith('/v1')) return notEndingWithV1;
  return undefined;
}
