import type { LocationConfig } from '../app/config.ts';

/**
 * The configured location an admin request or command names, or, when it names none, the only
 * one; otherwise the error to answer (400), naming the locations configured.
 *
 * @example
 * requestLocation(config.locations, req.query.location); // LocationConfig | "unknown location 'lyon'; configured: paris, nice"
 */
export function requestLocation(
  locations: readonly LocationConfig[],
  name: string | undefined,
): LocationConfig | string {
  if (locations.length === 0)
    return `${name === undefined ? '' : `unknown location '${name}': `}no location is configured: set REPLYFLOW_PROVIDER_URL, REPLYFLOW_API_KEY_ID and REPLYFLOW_API_KEY_SECRET (and REPLYFLOW_LOCATION to name it), or REPLYFLOW_CONFIG`;
  const names = locations.map((l) => l.name).join(', ');
  if (name === undefined) {
    if (locations.length === 1) return locations[0]!;
    return `location is required: this server has several (${names})`;
  }
  return (
    locations.find((l) => l.name === name) ?? `unknown location '${name}'; configured: ${names}`
  );
}
