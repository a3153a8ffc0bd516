import { setTimeout as sleep } from 'node:timers/promises';
import type { CountryCode } from 'libphonenumber-js/max';
import type { Dispatcher } from 'undici';
import { z } from 'zod';
import { ConfigError } from '../errors.ts';
import { baseUrlProblem } from './base-url-problem.ts';
import { type ContactsApi, createContactsApi } from './contacts-api.ts';
import { createCustomColumnsCache, defaultCustomColumnsTtlMs } from './custom-columns-cache.ts';
import { createGroupsApi, type GroupsApi } from './groups-api.ts';
import {
  createProviderTransport,
  defaultTimeouts,
  type ProviderCall,
  type ProviderLogger,
  type ProviderTimeouts,
} from './provider-transport.ts';
import { createWarningSink, type WarningSink } from './provider-warning.ts';
import { createRequestLimiter, type RequestLimiter } from './request-limiter.ts';
import { defaultRetryPolicy, type RetryPolicy, retryTransient } from './retry-transient.ts';
import { type CustomColumn, customColumnSchema } from './schemas/custom-column.ts';
import { createSmsApi, type SmsApi } from './sms-api.ts';
import { createWebhooksApi, type WebhooksApi } from './webhooks-api.ts';

export interface MessagingClientOptions {
  /** Base URL of the service, ending with the version segment: `https://api.example.com/v1`. */
  baseUrl: string;
  /** API key id of this location's key pair. */
  keyId: string;
  /** API key secret of this location's key pair. Never logged. */
  keySecret: string;
  /** The location the key pair belongs to; errors and log lines name it. */
  location: string;
  /** Country for recipients written in national form (`06 12 34 56 78` with `FR`). */
  defaultCountry?: CountryCode | undefined;
  /**
   * An undici dispatcher to send through, closed by its owner, not by `close()`. By default the
   * client opens its own keep-alive `Pool` on the base URL's origin.
   */
  dispatcher?: Dispatcher;
  limits?: {
    /** Requests per second for this key pair. Default 10. */
    perSecond?: number;
    /** Requests allowed to wait for a token before new ones are refused. Default 1000. */
    maxQueue?: number;
    /** A limiter to use instead of the in-process one (one shared through Redis, say). */
    limiter?: RequestLimiter;
  };
  /** Retries of idempotent calls. Default 3 attempts, 250 ms base, 10 s cap. */
  retry?: Partial<RetryPolicy>;
  /** Connection and response time-outs; see `ProviderTimeouts` for the defaults. */
  timeouts?: Partial<ProviderTimeouts>;
  /** How long the custom-column list used to check contacts is trusted. Default 5 minutes. */
  customColumnsTtlMs?: number;
  logger?: ProviderLogger;
  /** Called for each warning (a DOUBLE that campaigns round, a sanitized `from`), besides the log. */
  onWarning?: WarningSink;
  /** Time source, for tests. */
  clock?: { now(): number };
  /** Waits between retries, for tests. */
  sleep?: (ms: number) => Promise<void>;
  /** Jitter source in [0, 1), for tests. */
  random?: () => number;
}

export interface CustomColumnsApi {
  /**
   * Lists the account's custom columns (`GET /customColumns`), always fresh, retried on
   * transient failures. The result also refreshes the cache that `contacts.add` checks against.
   *
   * @example
   * const columns = await client.customColumns.list();
   * const birthday = columns.find((c) => c.userLabel === 'Birthday' && c.type === 'DATETIME');
   */
  list(): Promise<CustomColumn[]>;
}

/** A typed client for every endpoint of the messaging service, bound to one location's key pair. */
export interface MessagingClient {
  readonly location: string;
  readonly sms: SmsApi;
  readonly groups: GroupsApi;
  readonly contacts: ContactsApi;
  readonly customColumns: CustomColumnsApi;
  readonly webhooks: WebhooksApi;
  /**
   * Asks the service once whether it answers (`GET /webhooks`, one attempt, no retry): resolves
   * on any 2xx, rejects as any call does. The sender asks it before it trusts that a send in
   * doubt would have been reported by now.
   *
   * @example
   * await client.ping();
   */
  ping(): Promise<void>;
  /**
   * Closes the client's connections. Calls made afterwards fail.
   *
   * @example
   * await client.close();
   */
  close(): Promise<void>;
}

const columnListSchema = z.array(customColumnSchema);

/**
 * Creates the client of one location.
 *
 * @example
 * const client = createMessagingClient({
 *   baseUrl: 'https://api.example.com/v1',
 *   keyId: process.env.KEY_ID!,
 *   keySecret: process.env.KEY_SECRET!,
 *   location: 'paris',
 *   defaultCountry: 'FR',
 *   limits: { perSecond: 5 },
 * });
 * await client.sms.send({ to: '06 12 34 56 78', body: 'Hello' });
 * await client.close();
 */
export function createMessagingClient(options: MessagingClientOptions): MessagingClient {
  const problem = baseUrlProblem(options.baseUrl);
  if (problem) throw new ConfigError(`baseUrl '${options.baseUrl}' ${problem}`);
  const clock = options.clock ?? { now: Date.now };
  const now = () => clock.now();
  const wait = options.sleep ?? ((ms: number) => sleep(ms));
  const policy: RetryPolicy = { ...defaultRetryPolicy, ...options.retry };
  const timing = { sleep: wait, random: options.random ?? Math.random };
  const transport = createProviderTransport({
    baseUrl: options.baseUrl,
    keyId: options.keyId,
    keySecret: options.keySecret,
    location: options.location,
    dispatcher: options.dispatcher,
    limiter:
      options.limits?.limiter ??
      createRequestLimiter({
        perSecond: options.limits?.perSecond ?? 10,
        maxQueue: options.limits?.maxQueue,
      }),
    timeouts: { ...defaultTimeouts, ...options.timeouts },
    now,
    sleep: wait,
    logger: options.logger,
  });
  const withRetries = <T>(run: () => Promise<T>) =>
    retryTransient(run, policy, timing, (error, attempt, delayMs) =>
      options.logger?.debug(
        { location: options.location, code: (error as { code?: string }).code, attempt, delayMs },
        'retrying a messaging service call',
      ),
    );
  const idempotent = <T>(call: ProviderCall<T>) => withRetries(() => transport.request(call));
  const warn = createWarningSink(options.logger, options.onWarning);
  const listColumns = () =>
    idempotent({ method: 'GET', path: '/customColumns', schema: columnListSchema });
  const columns = createCustomColumnsCache({
    fetch: listColumns,
    ttlMs: options.customColumnsTtlMs ?? defaultCustomColumnsTtlMs,
    now,
  });
  const { location, defaultCountry, logger } = options;

  return {
    location,
    sms: createSmsApi({ location, transport, idempotent, defaultCountry, warn, logger }),
    groups: createGroupsApi({ transport, idempotent }),
    contacts: createContactsApi({ location, transport, columns, warn }),
    customColumns: { list: () => columns.refresh() },
    webhooks: createWebhooksApi({ transport, idempotent, retryTransient: withRetries }),
    async ping() {
      await transport.request({ method: 'GET', path: '/webhooks', schema: z.unknown() });
    },
    close: () => transport.close(),
  };
}
