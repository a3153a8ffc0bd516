import type { Logger } from '../observability/logger.ts';
import type { CustomColumn } from '../provider/schemas/custom-column.ts';
import { defaultCustomColumns } from './default-custom-columns.ts';

/** An API key pair and the one location it is bound to (spec §1.4, §5). */
export interface EmulatorKeyPair {
  id: string;
  secret: string;
  location: string;
}

/**
 * What the handset of a recipient does with a message: `delivered` (the default), `expired`
 * (sent, then errored `EXPIRED`), `invalid` (errored `invalid_phone_number` before sending) or
 * `silent` (sent, and no delivery report ever comes).
 */
export type RecipientOutcome = 'delivered' | 'expired' | 'invalid' | 'silent';

export interface EmulatorOptions {
  /** Default 4010; 0 picks a free port. */
  port?: number;
  /**
   * Default '127.0.0.1'. Where the emulator listens (`createEmulatorApp`: where the server that
   * mounts it listens): beyond loopback, webhook URLs to loopback, private and link-local
   * addresses are refused unless `allowPrivateWebhooks`.
   */
  host?: string;
  keyPairs: EmulatorKeyPair[];
  /**
   * Accept webhook URLs on other hosts than this machine's loopback. Default false: anyone who
   * can reach the emulator could otherwise make it call an address of the private network.
   */
  allowRemoteWebhooks?: boolean;
  /**
   * Accept webhook URLs on loopback, private (10/8, 172.16/12, 192.168/16, 100.64/10, fc00::/7)
   * and link-local (169.254/16, fe80::/10) addresses even when `host` is not loopback: the
   * container network case. Default false: anyone who reaches the emulator could otherwise make
   * it call into this machine or its network.
   */
  allowPrivateWebhooks?: boolean;
  /**
   * Origins (`http://127.0.0.1:3000`) registered and called whatever their address:
   * `replyflow dev` trusts its own webhook.
   */
  trustedWebhookOrigins?: string[];
  /**
   * Host names (or addresses) `startEmulator`'s control API answers besides loopback ones, any
   * port (`--allow-host`), and its `/v1` when `host` is loopback or a key pair is `dev:dev`. A
   * specific `host` is allowed too.
   */
  allowedHosts?: string[];
  /** Multiplies every delay: lifecycle, retry backoff and the 4 s webhook deadline. Default 1. */
  timeScale?: number;
  /** Requests per second per key pair on every /v1 endpoint. Default 100; Infinity disables. */
  rateLimitPerSecond?: number;
  /** Price of one SMS part. Default 0.05. */
  unitPrice?: number;
  /** Starting balance of every location. Default 1000. */
  initialBalance?: number;
  /** The default sender, selected by an empty `from`. Default '38200'. */
  shortCode?: string;
  /** `type` of the reply envelope. Default 'sms.status', as in the spec's own sample. */
  replyEnvelopeType?: 'sms.status' | 'sms.reply';
  /** Seeded in every location. Default: one column of each type. */
  customColumns?: CustomColumn[];
  /** `sentAfterMs` from creation to sent, `reportAfterMs` from sent to the delivery report. */
  lifecycle?: { sentAfterMs?: number; reportAfterMs?: number };
  /** Retry n waits `baseMs × 2^n`; `timeoutMs` is the answer deadline. */
  webhookRetry?: { baseMs?: number; maxRetries?: number; timeoutMs?: number };
  logger?: Logger;
}

/** The options with every default applied; delays are still unscaled. */
export interface EmulatorConfig {
  port: number;
  host: string;
  keyPairs: EmulatorKeyPair[];
  allowRemoteWebhooks: boolean;
  allowPrivateWebhooks: boolean;
  trustedWebhookOrigins: string[];
  allowedHosts: string[];
  timeScale: number;
  rateLimitPerSecond: number;
  unitPrice: number;
  initialBalance: number;
  shortCode: string;
  replyEnvelopeType: 'sms.status' | 'sms.reply';
  customColumns: CustomColumn[] | undefined;
  sentAfterMs: number;
  reportAfterMs: number;
  retryBaseMs: number;
  maxRetries: number;
  deliveryTimeoutMs: number;
}

export function resolveEmulatorOptions(options: EmulatorOptions): EmulatorConfig {
  if (options.keyPairs.length === 0) {
    throw new Error('the emulator needs at least one key pair (id, secret, location)');
  }
  const ids = new Set(options.keyPairs.map((pair) => pair.id));
  if (ids.size !== options.keyPairs.length) {
    throw new Error('two emulator key pairs share an id: give each key pair its own id');
  }
  const timeScale = options.timeScale ?? 1;
  if (!(timeScale > 0)) throw new Error(`timeScale must be a positive number, got ${timeScale}`);
  const rateLimitPerSecond = options.rateLimitPerSecond ?? 100;
  if (!(rateLimitPerSecond > 0)) {
    throw new Error(`rateLimitPerSecond must be positive (Infinity disables it)`);
  }
  return {
    port: options.port ?? 4010,
    host: options.host ?? '127.0.0.1',
    keyPairs: options.keyPairs,
    allowRemoteWebhooks: options.allowRemoteWebhooks ?? false,
    allowPrivateWebhooks: options.allowPrivateWebhooks ?? false,
    trustedWebhookOrigins: (options.trustedWebhookOrigins ?? []).map((url) => new URL(url).origin),
    allowedHosts: options.allowedHosts ?? [],
    timeScale,
    rateLimitPerSecond,
    unitPrice: options.unitPrice ?? 0.05,
    initialBalance: options.initialBalance ?? 1000,
    shortCode: options.shortCode ?? '38200',
    replyEnvelopeType: options.replyEnvelopeType ?? 'sms.status',
    customColumns: options.customColumns,
    sentAfterMs: options.lifecycle?.sentAfterMs ?? 100,
    reportAfterMs: options.lifecycle?.reportAfterMs ?? 400,
    retryBaseMs: options.webhookRetry?.baseMs ?? 1000,
    maxRetries: options.webhookRetry?.maxRetries ?? 10,
    deliveryTimeoutMs: options.webhookRetry?.timeoutMs ?? 4000,
  };
}

/** The columns a location starts with: the configured ones, or one of each type. */
export function seededColumns(config: EmulatorConfig, venueId: number): CustomColumn[] {
  return config.customColumns?.map((column) => ({ ...column })) ?? defaultCustomColumns(venueId);
}
