import type { CountryCode } from 'libphonenumber-js/max';
import {
  createMessagingClient,
  type MessagingClient,
  type MessagingClientOptions,
} from './messaging-client.ts';
import type { RequestLimiter } from './request-limiter.ts';

/** The fields of a configured location the client needs (`LocationConfig` from app/ has them). */
export interface MessagingLocation {
  name: string;
  providerUrl: string;
  apiKeyId: string;
  apiKeySecret: string;
  defaultCountry?: string | undefined;
  rateLimitPerSecond: number;
}

/** Options shared by every location's client: logger, warnings, retries, time-outs, test seams. */
export type SharedClientOptions = Omit<
  MessagingClientOptions,
  'baseUrl' | 'keyId' | 'keySecret' | 'location' | 'defaultCountry' | 'limits'
>;

/**
 * One client per configured location, keyed by location name. Each has its own key pair and its
 * own rate limiter, since the service binds each key pair, and its limit, to one location.
 *
 * @example
 * const clients = createMessagingClients(await loadConfig(process.env), { logger });
 * await clients.get('paris')?.sms.send({ to: '+33612345678', body: 'Bonjour' });
 */
export function createMessagingClients(
  config: { locations: readonly MessagingLocation[] },
  shared: SharedClientOptions & {
    /** A limiter per location shared with other processes (replaces the in-process one). */
    limiters?: ReadonlyMap<string, RequestLimiter>;
  } = {},
): Map<string, MessagingClient> {
  const { limiters, ...options } = shared;
  return new Map(
    config.locations.map((location) => [
      location.name,
      createMessagingClient({
        ...options,
        baseUrl: location.providerUrl,
        keyId: location.apiKeyId,
        keySecret: location.apiKeySecret,
        location: location.name,
        defaultCountry: location.defaultCountry as CountryCode | undefined,
        limits: { perSecond: location.rateLimitPerSecond, limiter: limiters?.get(location.name) },
      }),
    ]),
  );
}
