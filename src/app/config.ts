import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import { parseDuration } from '../bot/parse-duration.ts';
import { complianceConfigSchema } from '../compliance/compliance-config.ts';
import { ConfigError } from '../errors.ts';
import { eventSecretSchema } from '../events/event-secret.ts';
import {
  eventSubscriptionSchema,
  eventUrlProblem,
  retryForProblem,
} from '../events/event-subscription-schema.ts';
import type { EventSubscription } from '../events/outbound-event.ts';
import { defaultSendsInFlight } from '../outbox/create-sender.ts';
import { notAnHttpUrl, notEndingWithV1 } from '../provider/base-url-problem.ts';
import { adminTokenSchema } from './admin-token-schema.ts';
import { eventsFromEnv } from './events-from-env.ts';
import { redisUrlSchema } from './redis-url-schema.ts';
import { trustProxySchema } from './trust-proxy-schema.ts';

/** A duration setting (`30s`, `2m`, `1h`) read as milliseconds; `message` when it is not one, or is under `minMs`. */
function duration(fallback: string, message: string, minMs = 0) {
  return z
    .string()
    .default(fallback)
    .transform((value, ctx) => {
      const ms = parseDuration(value);
      if (ms === undefined || ms < minMs) ctx.addIssue({ code: 'custom', message });
      return ms ?? 0;
    });
}

const providerUrl = z
  .url({ protocol: /^https?$/, error: notAnHttpUrl })
  .refine((url) => url.replace(/\/+$/, '').endsWith('/v1'), { error: notEndingWithV1 })
  .transform((url) => url.replace(/\/+$/, ''));

const countryCode = z
  .string()
  .regex(/^[A-Z]{2}$/, { error: 'must be an ISO 3166 country code such as FR' });

/** One location: the service binds each API key pair to exactly one location (spec §1.4). */
export const locationConfigSchema = z.object({
  /** The location's name, used in the webhook path `/webhooks/:location/:secret`. */
  name: z.string().regex(/^[a-z0-9][a-z0-9_-]*$/i, {
    error: 'must be letters, digits, - or _ (it appears in the webhook URL)',
  }),
  /** Base URL of the messaging service, ending with the version segment: https://…/v1. */
  providerUrl,
  /** API key id of this location's key pair (dashboard, account menu). */
  apiKeyId: z.string().min(1, { error: 'is required' }),
  /** API key secret of this location's key pair. Never logged. */
  apiKeySecret: z.string().min(1, { error: 'is required' }),
  /**
   * Random secret path segment of this location's webhook URL (the service does not sign
   * notifications). Needed to serve webhooks; the CLI's client commands do without it. Letters,
   * digits, `-` and `_` only: a `/`, `+`, `=`, `%`, `#`, `?` or space (base64 has some) would
   * change the URL's path, and every notification would then be answered 404.
   */
  webhookSecret: z
    .string()
    .regex(/^[A-Za-z0-9_-]{16,}$/, {
      error:
        'must be at least 16 characters, each a letter, a digit, - or _ (it is a path segment of the webhook URL): make one with openssl rand -hex 32',
    })
    .optional(),
  /** Country assumed for phone numbers written in national form (0612345678). */
  defaultCountry: countryCode.optional(),
  /** Requests per second this location's key pair may make; the service's limits are not published. */
  rateLimitPerSecond: z.number().positive().default(10),
  /** Opt-out/opt-in/help keywords, texts, language, quiet hours, loop guard (docs/compliance.md); defaults apply when absent. */
  compliance: complianceConfigSchema.optional(),
  /** Where this location's events go (docs/integrations.md): `[{ url, secret, types?, allowPrivateAddresses? }]`. */
  events: z.array(eventSubscriptionSchema).optional(),
});
export type LocationConfig = z.infer<typeof locationConfigSchema>;

/** The variables replyflow reads. `loadConfig` is the only reader of the environment. */
const envSchema = z.object({
  /** Base URL of the messaging service; must end with /v1. Unset with no key pair: `dev` runs the emulator. */
  REPLYFLOW_PROVIDER_URL: z.string().optional(),
  /** API key id of the single location configured through env. */
  REPLYFLOW_API_KEY_ID: z.string().optional(),
  /** API key secret of the single location configured through env. */
  REPLYFLOW_API_KEY_SECRET: z.string().optional(),
  /** Name of the single location configured through env. */
  REPLYFLOW_LOCATION: z.string().default('default'),
  /** Secret path segment of that location's webhook URL. */
  REPLYFLOW_WEBHOOK_SECRET: z.string().optional(),
  /** Country for national-form phone numbers (FR, BE, …): checked in every mode, `dev` included. */
  REPLYFLOW_DEFAULT_COUNTRY: countryCode.optional(),
  /** Requests per second for that location's key pair. */
  REPLYFLOW_RATE_LIMIT: z.coerce.number().optional(),
  /**
   * The loop guard of the single location configured through env: at most this many messages to
   * one phone per window, as `<max>/<window>` (`10/1m`, the default; `30/1h`). A config file sets
   * it per location (`compliance.loopGuard`).
   */
  REPLYFLOW_LOOP_GUARD: z
    .string()
    .regex(/^\d+\/\d+(ms|s|m|h|d)$/, { error: 'must be <max>/<window>, such as 10/1m or 30/1h' })
    .optional(),
  /** URL that receives the single location's events, signed (docs/integrations.md): https, or http to loopback. */
  REPLYFLOW_EVENTS_URL: z
    .string()
    .optional()
    .transform((value) => value || undefined)
    .superRefine((url, ctx) => {
      const problem = url === undefined ? undefined : eventUrlProblem(url);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    }),
  /** Secret that signs them: `whsec_` + base64 of 24–64 random bytes (echo "whsec_$(openssl rand -base64 32)"). */
  REPLYFLOW_EVENTS_SECRET: z
    .string()
    .optional()
    .transform((value) => value || undefined)
    .pipe(eventSecretSchema.optional()),
  /** `1`: deliver the events to private, loopback and link-local addresses too (refused otherwise, at send time). */
  REPLYFLOW_EVENTS_ALLOW_PRIVATE: z
    .enum(['', '0', '1', 'true', 'false'], { error: 'must be 1 or 0' })
    .optional()
    .transform((value) => value === '1' || value === 'true'),
  /**
   * How long a failing event delivery is retried, from when the event was queued, before it is
   * a dead letter (`24h`, `3d`; 1m to 30d): every subscription's, but one with its own
   * `retryFor` in the config file. Unset: 24h.
   */
  REPLYFLOW_EVENTS_RETRY_FOR: z
    .string()
    .optional()
    .transform((value) => value || undefined)
    .superRefine((value, ctx) => {
      const problem = value === undefined ? undefined : retryForProblem(value);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    }),
  /** A JSON or TypeScript file describing several locations; replaces the single-location variables. */
  REPLYFLOW_CONFIG: z.string().optional(),
  /** Folder of bot files (`*.ts`). */
  REPLYFLOW_BOTS_DIR: z.string().default('./bots'),
  /** Public base URL of this server; when set, each location's webhook is registered on start. */
  REPLYFLOW_PUBLIC_URL: z
    .url({ error: 'must be a URL such as https://bots.example.com' })
    .optional(),
  /**
   * Redis connection URL: redis://host:port (user:password@ and /db optional), rediss:// for TLS,
   * or a Unix socket's absolute path. Unset: the in-memory store (one process, state lost on exit).
   */
  REDIS_URL: redisUrlSchema.optional(),
  /**
   * A Redis Cluster instead of one Redis: `host:port` of some of its masters, comma-separated
   * (`10.0.0.1:6379,10.0.0.2:6379`); the others are found from them. Exclusive with REDIS_URL.
   */
  REDIS_CLUSTER_NODES: z
    .string()
    .optional()
    .transform((value) =>
      value
        ?.split(',')
        .map((node) => node.trim())
        .filter(Boolean),
    )
    .pipe(
      z
        .array(
          z.string().regex(/^(\[[0-9a-f:.]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?$/i, {
            error:
              'must list host:port entries separated by commas, such as 10.0.0.1:6379,10.0.0.2:6379',
          }),
        )
        .optional(),
    ),
  /**
   * Partitions of the Redis store's shared structures (queues, timers), spread over a
   * cluster's masters by their hash tags `{p0}`…: see docs/redis-cluster.md for how many to use.
   * Fixed for the life of the data: every process must use the same number.
   */
  REPLYFLOW_REDIS_PARTITIONS: z.coerce.number().int().min(1).max(1024).default(16),
  /** Prefix of every Redis key replyflow writes, so several deployments can share one Redis. */
  REPLYFLOW_REDIS_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9:_-]*$/, { error: 'must be letters, digits, :, _ or -' })
    .default('rf:'),
  /** How long a message may be retried on transient failures before the bot hears `send_failed` (30m, 1h, 2d). */
  REPLYFLOW_SEND_DEADLINE: duration('1h', 'must be a duration such as 30m, 1h or 2d'),
  /**
   * SMS sends in flight at once per process. A process killed after the service accepted some
   * and before it recorded their ids leaves them in doubt: the process that takes its outboxes
   * over finds them by their `sms.status` (REPLYFLOW_IN_DOUBT_GRACE) and does not send them
   * again (DESIGN §2.4). Throughput per process is about this many ÷ the service's round trip.
   */
  REPLYFLOW_SEND_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(defaultSendsInFlight),
  /** Conversations a process works on at once. */
  REPLYFLOW_WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(8),
  /** How long a claimed conversation or outbox stays hidden from other processes; a dead process's claims are taken over after it (10s, 30s, 2m). */
  REPLYFLOW_LEASE: duration('30s', 'must be a duration of at least 1s, such as 30s or 2m', 1_000),
  /**
   * After taking an outbox over from a process that died mid-send, how long its head waits for
   * the service's status of a send that process may have made, before it is sent (0s: never
   * waits, and a send the dead process made is sent again).
   */
  REPLYFLOW_IN_DOUBT_GRACE: duration('30s', 'must be a duration such as 0s, 30s or 2m'),
  /** HTTP port of the webhook and admin server. */
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  /**
   * Bearer token for `/metrics`, the admin routes (`POST /admin/conversations`) and the
   * dashboard's login (`/admin`, full access). Unset: `/metrics` is open and the admin routes
   * answer 403 (but on `replyflow dev`'s loopback). Trimmed, then a random value of at least
   * 32 characters (`adminTokenSchema`): openssl rand -hex 32.
   */
  REPLYFLOW_ADMIN_TOKEN: adminTokenSchema.optional(),
  /**
   * Bearer token (or dashboard login) with read-only access to the admin routes: every GET
   * answers, anything else 403. Same rule as REPLYFLOW_ADMIN_TOKEN (openssl rand -hex 32), and
   * must differ from it. Unset: no read-only access.
   */
  REPLYFLOW_ADMIN_READ_TOKEN: adminTokenSchema.optional(),
  /**
   * Which proxies in front of the web server to believe about the client (X-Forwarded-For,
   * X-Forwarded-Proto: the dashboard's Secure cookie, the login rate limit per address): a number
   * of hops (`1`), or addresses and subnets, comma-separated (`loopback`, `10.0.0.0/8`). Unset:
   * none, the connection's own address and scheme count.
   */
  REPLYFLOW_TRUST_PROXY: trustProxySchema.optional(),
  /** Webhook requests in flight at once; past it the webhook answers 503 at once (the service retries). */
  REPLYFLOW_MAX_INFLIGHT: z.coerce.number().int().min(1).max(100_000).default(512),
  /** How long a stop (SIGTERM, SIGINT) may take: in-flight steps and sends finish, claims are released, then the process exits 0. */
  REPLYFLOW_STOP_TIMEOUT: duration('10s', 'must be a duration such as 10s or 1m'),
  /**
   * How long an ended conversation's record and every message record are kept in Redis (from
   * their last write), before Redis forgets them: personal data is not kept forever. At least 1h.
   */
  REPLYFLOW_RETENTION: duration(
    '30d',
    'must be a duration of at least 1h, such as 30d or 90d',
    3_600_000,
  ),
  /** How long a conversation's result is kept once it ended. Unset: REPLYFLOW_RETENTION. At least 1h. */
  REPLYFLOW_RESULTS_RETENTION: z
    .string()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined || value === '') return undefined;
      const ms = parseDuration(value);
      if (ms === undefined || ms < 3_600_000) {
        ctx.addIssue({ code: 'custom', message: 'must be a duration of at least 1h, such as 90d' });
      }
      return ms;
    }),
  /** Port on which `replyflow worker` serves /healthz, /readyz and /metrics. Unset: the worker serves no HTTP. */
  REPLYFLOW_HEALTH_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  /** pino log level. */
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

/** Every variable `loadConfig` reads (the container test checks compose.yaml against it). */
export const configVariables: readonly string[] = Object.keys(envSchema.shape);

export interface AppConfig {
  /** Configured locations; empty means none, and `dev` then runs the built-in emulator. */
  locations: LocationConfig[];
  botsDir: string;
  publicUrl: string | undefined;
  redisUrl: string | undefined;
  redisPrefix: string;
  /** REDIS_CLUSTER_NODES as `host:port` strings; when set, the store runs on a Redis Cluster. */
  redisClusterNodes?: string[];
  /** REPLYFLOW_REDIS_PARTITIONS (16 when absent). */
  redisPartitions?: number;
  /** REPLYFLOW_SEND_DEADLINE in milliseconds. */
  sendDeadlineMs: number;
  sendConcurrency: number;
  workerConcurrency: number;
  /** REPLYFLOW_LEASE in milliseconds. */
  leaseMs: number;
  /** REPLYFLOW_IN_DOUBT_GRACE in milliseconds. */
  inDoubtGraceMs: number;
  port: number;
  logLevel: z.infer<typeof envSchema>['LOG_LEVEL'];
  /** REPLYFLOW_ADMIN_TOKEN: guards /metrics and the admin routes; unset, the admin routes answer 403. */
  adminToken?: string;
  /** REPLYFLOW_ADMIN_READ_TOKEN: read-only access to the admin routes and the dashboard. */
  adminReadToken?: string;
  /** REPLYFLOW_TRUST_PROXY as Express's `trust proxy` setting (hops, or addresses and subnets). */
  trustProxy?: number | string[];
  /** REPLYFLOW_MAX_INFLIGHT (default 512). */
  maxInflight?: number;
  /** REPLYFLOW_STOP_TIMEOUT in milliseconds (default 10 s). */
  stopTimeoutMs?: number;
  /** REPLYFLOW_HEALTH_PORT: where a process without the web role serves its health routes. */
  healthPort?: number;
  /** REPLYFLOW_RETENTION in milliseconds (default 30 days). */
  retentionMs?: number;
  /** REPLYFLOW_RESULTS_RETENTION in milliseconds (default: `retentionMs`). */
  resultsRetentionMs?: number;
  /** REPLYFLOW_EVENTS_URL's subscription, for the location `replyflow dev` makes when none is configured. */
  events?: EventSubscription[];
  /** REPLYFLOW_DEFAULT_COUNTRY, for the location `replyflow dev` makes when none is configured (else FR). */
  defaultCountry?: string;
}

/**
 * Reads and checks the configuration. Every problem is reported at once, each naming its
 * variable or config-file field and saying what is expected.
 */
export async function loadConfig(env: NodeJS.ProcessEnv = process.env): Promise<AppConfig> {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) throw configError(parsed.error, '');
  const vars = parsed.data;
  if (vars.REDIS_URL && vars.REDIS_CLUSTER_NODES) {
    throw new ConfigError(
      'invalid configuration:\n  - REDIS_URL and REDIS_CLUSTER_NODES are both set: set REDIS_URL for one Redis, or REDIS_CLUSTER_NODES for a Redis Cluster, not both',
    );
  }
  if (
    vars.REPLYFLOW_ADMIN_READ_TOKEN &&
    vars.REPLYFLOW_ADMIN_READ_TOKEN === vars.REPLYFLOW_ADMIN_TOKEN
  ) {
    throw new ConfigError(
      'invalid configuration:\n  - REPLYFLOW_ADMIN_READ_TOKEN equals REPLYFLOW_ADMIN_TOKEN: give read-only access its own token (openssl rand -hex 32)',
    );
  }
  const locations = withRetryFor(
    vars.REPLYFLOW_CONFIG ? await readLocationsFile(vars.REPLYFLOW_CONFIG) : locationFromEnv(vars),
    vars.REPLYFLOW_EVENTS_RETRY_FOR,
  );
  return {
    locations,
    botsDir: resolve(vars.REPLYFLOW_BOTS_DIR),
    publicUrl: vars.REPLYFLOW_PUBLIC_URL?.replace(/\/+$/, ''),
    redisUrl: vars.REDIS_URL || undefined,
    redisPrefix: vars.REPLYFLOW_REDIS_PREFIX,
    redisClusterNodes: vars.REDIS_CLUSTER_NODES?.length ? vars.REDIS_CLUSTER_NODES : undefined,
    redisPartitions: vars.REPLYFLOW_REDIS_PARTITIONS,
    sendDeadlineMs: vars.REPLYFLOW_SEND_DEADLINE,
    sendConcurrency: vars.REPLYFLOW_SEND_CONCURRENCY,
    workerConcurrency: vars.REPLYFLOW_WORKER_CONCURRENCY,
    leaseMs: vars.REPLYFLOW_LEASE,
    inDoubtGraceMs: vars.REPLYFLOW_IN_DOUBT_GRACE,
    port: vars.PORT,
    logLevel: vars.LOG_LEVEL,
    adminToken: vars.REPLYFLOW_ADMIN_TOKEN,
    adminReadToken: vars.REPLYFLOW_ADMIN_READ_TOKEN,
    trustProxy: vars.REPLYFLOW_TRUST_PROXY,
    maxInflight: vars.REPLYFLOW_MAX_INFLIGHT,
    stopTimeoutMs: vars.REPLYFLOW_STOP_TIMEOUT,
    healthPort: vars.REPLYFLOW_HEALTH_PORT,
    retentionMs: vars.REPLYFLOW_RETENTION,
    resultsRetentionMs: vars.REPLYFLOW_RESULTS_RETENTION,
    ...(!vars.REPLYFLOW_CONFIG && { events: eventsFromEnv(vars) }),
    ...(vars.REPLYFLOW_DEFAULT_COUNTRY && { defaultCountry: vars.REPLYFLOW_DEFAULT_COUNTRY }),
  };
}

const envNames: Record<string, string> = {
  name: 'REPLYFLOW_LOCATION',
  providerUrl: 'REPLYFLOW_PROVIDER_URL',
  apiKeyId: 'REPLYFLOW_API_KEY_ID',
  apiKeySecret: 'REPLYFLOW_API_KEY_SECRET',
  webhookSecret: 'REPLYFLOW_WEBHOOK_SECRET',
  defaultCountry: 'REPLYFLOW_DEFAULT_COUNTRY',
  rateLimitPerSecond: 'REPLYFLOW_RATE_LIMIT',
  compliance: 'REPLYFLOW_LOOP_GUARD',
};

function locationFromEnv(vars: z.infer<typeof envSchema>): LocationConfig[] {
  const given = [
    vars.REPLYFLOW_PROVIDER_URL,
    vars.REPLYFLOW_API_KEY_ID,
    vars.REPLYFLOW_API_KEY_SECRET,
  ];
  if (given.every((value) => !value)) return [];
  const result = locationConfigSchema.safeParse({
    name: vars.REPLYFLOW_LOCATION,
    providerUrl: vars.REPLYFLOW_PROVIDER_URL ?? '',
    apiKeyId: vars.REPLYFLOW_API_KEY_ID ?? '',
    apiKeySecret: vars.REPLYFLOW_API_KEY_SECRET ?? '',
    webhookSecret: vars.REPLYFLOW_WEBHOOK_SECRET || undefined,
    defaultCountry: vars.REPLYFLOW_DEFAULT_COUNTRY,
    rateLimitPerSecond: vars.REPLYFLOW_RATE_LIMIT,
    ...(vars.REPLYFLOW_LOOP_GUARD && {
      compliance: { loopGuard: loopGuardOf(vars.REPLYFLOW_LOOP_GUARD) },
    }),
    events: eventsFromEnv(vars),
  });
  if (!result.success) throw configError(result.error, 'env');
  return [result.data];
}

/** REPLYFLOW_EVENTS_RETRY_FOR given to each subscription that has no `retryFor` of its own. */
function withRetryFor(locations: LocationConfig[], retryFor: string | undefined): LocationConfig[] {
  if (retryFor === undefined) return locations;
  return locations.map((location) =>
    location.events
      ? { ...location, events: location.events.map((s) => ({ retryFor, ...s })) }
      : location,
  );
}

/** `10/1m` as the compliance section's `{ max, window }`. */
function loopGuardOf(value: string): { max: number; window: string } {
  const [max = '', window = ''] = value.split('/');
  return { max: Number(max), window };
}

const locationsFileSchema = z.object({
  locations: z
    .array(locationConfigSchema)
    .min(1, { error: 'needs at least one location' })
    .refine((list) => new Set(list.map((l) => l.name)).size === list.length, {
      error: 'location names must be unique',
    })
    .superRefine(refuseSharedKeyPairs),
});

/** The service binds each key pair to exactly one location (spec §1.4): two locations cannot share one. */
function refuseSharedKeyPairs(list: LocationConfig[], ctx: z.RefinementCtx): void {
  const owners = new Map<string, string>();
  for (const location of list) {
    const pair = `${location.providerUrl}\u0000${location.apiKeyId}`;
    const owner = owners.get(pair);
    if (owner === undefined) owners.set(pair, location.name);
    else {
      ctx.addIssue({
        code: 'custom',
        message: `'${owner}' and '${location.name}' use the same key pair (API key id '${location.apiKeyId}'): the service binds each key pair to one location, so give each location its own`,
      });
    }
  }
}

async function readLocationsFile(path: string): Promise<LocationConfig[]> {
  const file = resolve(path);
  let raw: unknown;
  try {
    raw = /\.(c|m)?[jt]s$/.test(file)
      ? ((await import(pathToFileURL(file).href)) as { default: unknown }).default
      : JSON.parse(await readFile(file, 'utf8'));
  } catch (cause) {
    throw new ConfigError(
      `REPLYFLOW_CONFIG=${path}: cannot read ${file} (${(cause as Error).message}); ` +
        'point it at a JSON file or a module whose default export is { locations: [...] }',
      { cause },
    );
  }
  const result = locationsFileSchema.safeParse(raw);
  if (!result.success) throw configError(result.error, file);
  return result.data.locations;
}

function configError(error: z.ZodError, source: string): ConfigError {
  const lines = error.issues.map((issue) => {
    const [first, ...rest] = issue.path.map(String);
    const name =
      source === 'env'
        ? (envNames[first ?? ''] ?? first)
        : source === ''
          ? first
          : `${source}: ${[first, ...rest].join('.')}`;
    return `${name} ${issue.message}`;
  });
  return new ConfigError(`invalid configuration:\n  - ${lines.join('\n  - ')}`);
}
