import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppConfig } from '../../../src/app/config.ts';
import { type RunningReplyflow, startReplyflow } from '../../../src/app/start-replyflow.ts';
import { type RunningEmulator, startEmulator } from '../../../src/emulator/index.ts';
import { createMessagingClient } from '../../../src/provider/messaging-client.ts';
import { freePort } from '../../support/free-port.ts';
import { replyNotification } from '../../support/reply-loop.ts';

/**
 * Every character the probe found breaking the URL (issue 21, item 1). The config refuses such a
 * secret now; a config built in code still reaches `registerWebhooks` with it.
 */
const secret = 'a/b+c=d%e#f?g h-0123456789';

describe('the webhook URL registered on start', () => {
  let emulator: RunningEmulator;
  let app: RunningReplyflow;
  beforeAll(async () => {
    emulator = await startEmulator({
      port: 0,
      keyPairs: [{ id: 'k', secret: 's', location: 'paris' }],
      timeScale: 0.01,
    });
    const port = await freePort();
    const config: AppConfig = {
      locations: [
        {
          name: 'paris',
          providerUrl: emulator.baseUrl,
          apiKeyId: 'k',
          apiKeySecret: 's',
          webhookSecret: secret,
          rateLimitPerSecond: 1000,
        },
      ],
      botsDir: 'test/fixtures/echo-bot-only',
      publicUrl: `http://127.0.0.1:${port}`,
      redisUrl: undefined,
      redisPrefix: 'rf:',
      sendDeadlineMs: 3_600_000,
      sendConcurrency: 4,
      workerConcurrency: 4,
      leaseMs: 30_000,
      inDoubtGraceMs: 30_000,
      port,
      logLevel: 'silent',
    };
    app = await startReplyflow({ config, logger: pino({ level: 'silent' }), host: '127.0.0.1' });
  });
  afterAll(async () => {
    await app?.close();
    await emulator?.close();
  });

  it('is the one the webhook route accepts, its secret encoded', async () => {
    const client = createMessagingClient({
      baseUrl: emulator.baseUrl,
      keyId: 'k',
      keySecret: 's',
      location: 'paris',
    });
    const hooks = await client.webhooks.list();
    await client.close();
    expect(hooks).toHaveLength(1);
    const url = hooks[0]!.url;
    expect(url).toBe(`${app.url}/webhooks/paris/${encodeURIComponent(secret)}`);
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(replyNotification('encoded-1', '33612349999', 'hello')),
    });
    expect(res.status).toBe(200);
  });
});
