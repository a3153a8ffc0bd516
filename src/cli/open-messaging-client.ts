import { type AppConfig, type LocationConfig, loadConfig } from '../app/config.ts';
import { ConfigError } from '../errors.ts';
import { createMessagingClient, type MessagingClient } from '../provider/messaging-client.ts';
import type { ProviderWarning } from '../provider/provider-warning.ts';

/**
 * The client of one configured location, from the same configuration the server reads
 * (`loadConfig(process.env)`): `--location NAME`, or the first location when not given.
 */
export async function openMessagingClient(options: {
  location?: string | undefined;
  onWarning: (warning: ProviderWarning) => void;
}): Promise<MessagingClient> {
  const location = pickLocation(await loadConfig(process.env), options.location);
  return createMessagingClient({
    baseUrl: location.providerUrl,
    keyId: location.apiKeyId,
    keySecret: location.apiKeySecret,
    location: location.name,
    defaultCountry: location.defaultCountry as Parameters<
      typeof createMessagingClient
    >[0]['defaultCountry'],
    limits: { perSecond: location.rateLimitPerSecond },
    onWarning: options.onWarning,
  });
}

/** The location named `wanted`, or the first; a `ConfigError` that says what to set otherwise. */
export function pickLocation(
  config: Pick<AppConfig, 'locations'>,
  wanted: string | undefined,
): LocationConfig {
  const [first] = config.locations;
  if (!first) {
    throw new ConfigError(
      'no location is configured: set REPLYFLOW_PROVIDER_URL (the service base URL, ending with /v1), ' +
        'REPLYFLOW_API_KEY_ID and REPLYFLOW_API_KEY_SECRET (and REPLYFLOW_LOCATION to name it), ' +
        'or set REPLYFLOW_CONFIG to a file that lists several locations',
    );
  }
  if (wanted === undefined) return first;
  const found = config.locations.find((location) => location.name === wanted);
  if (!found) {
    throw new ConfigError(
      `unknown location '${wanted}': the configured locations are ${config.locations.map((l) => `'${l.name}'`).join(', ')}`,
    );
  }
  return found;
}
