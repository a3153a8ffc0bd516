/** The one location of the benchmark, its key pair at the emulator and its webhook secret. */
export const location = 'bench';
export const keyPair = { id: 'bench', secret: 'bench-secret' };
export const webhookSecret = 'bench-webhook-secret-0123456789';
export const webhookPath = `/webhooks/${location}/${webhookSecret}`;

/**
 * The environment `replyflow start` would be given against the emulator at `providerUrl`
 * (read by `loadConfig`, so every other setting keeps its default). The client-side rate
 * limit is set far above anything the bench reaches: the emulator has no limit, and the bench
 * measures replyflow, not the limiter. `overrides` come from the bench's command line.
 */
export function benchEnv(
  providerUrl: string,
  redisUrl: string,
  redisPrefix: string,
  overrides: Record<string, string> = {},
): Record<string, string> {
  return {
    REPLYFLOW_PROVIDER_URL: providerUrl,
    REPLYFLOW_API_KEY_ID: keyPair.id,
    REPLYFLOW_API_KEY_SECRET: keyPair.secret,
    REPLYFLOW_LOCATION: location,
    REPLYFLOW_WEBHOOK_SECRET: webhookSecret,
    REPLYFLOW_RATE_LIMIT: '1000000',
    // The hot phone gets hundreds of answers a minute: the loop guard stays on (its check is
    // what is measured), with a limit no phone here reaches.
    REPLYFLOW_LOOP_GUARD: '1000000/1m',
    REDIS_URL: redisUrl,
    REPLYFLOW_REDIS_PREFIX: redisPrefix,
    PORT: '0',
    LOG_LEVEL: 'warn',
    ...overrides,
  };
}

/** The `i`th handset: French mobile numbers 33612000000, 33612000001, … */
export function phoneNumber(i: number): string {
  return `33612${String(i).padStart(6, '0')}`;
}

/**
 * A reply notification as the service posts it (spec §2.7): classified as a reply by the shape
 * of its item (`originSms` present), with the service's own `type: "sms.status"`. The body
 * starts with the bot's keyword, so it starts a conversation on a new phone and continues the
 * active one otherwise.
 */
export function replyNotification(id: string, phone: string, body: string): string {
  return JSON.stringify({
    id,
    webhookId: 'w',
    type: 'sms.status',
    data: [{ originSms: { id: 'x' }, body, from: phone, to: '38200' }],
  });
}
