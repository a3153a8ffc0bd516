import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/app/config.ts';
import { newEventSecret } from '../../../src/events/event-secret.ts';

const single = {
  REPLYFLOW_PROVIDER_URL: 'https://api.example.com/v1',
  REPLYFLOW_API_KEY_ID: 'key',
  REPLYFLOW_API_KEY_SECRET: 'secret',
  REPLYFLOW_LOCATION: 'paris',
};
const secret = newEventSecret();

function failure(env: NodeJS.ProcessEnv): Promise<string> {
  return loadConfig(env).then(
    () => 'accepted',
    (error: Error) => error.message,
  );
}

async function configFile(events: unknown[]): Promise<string> {
  const file = join(await mkdtemp(join(tmpdir(), 'rf-events-')), 'replyflow.config.json');
  const location = {
    name: 'paris',
    providerUrl: 'https://api.example.com/v1',
    apiKeyId: 'k',
    apiKeySecret: 's',
    events,
  };
  await writeFile(file, JSON.stringify({ locations: [location] }));
  return file;
}

describe('event subscriptions in the configuration', () => {
  it('reads REPLYFLOW_EVENTS_URL and _SECRET as the single location subscription to every type', async () => {
    const config = await loadConfig({
      ...single,
      REPLYFLOW_EVENTS_URL: 'https://booking.example.com/replyflow',
      REPLYFLOW_EVENTS_SECRET: secret,
    });
    expect(config.locations[0]?.events).toEqual([
      { url: 'https://booking.example.com/replyflow', secret },
    ]);
    expect(config.events).toEqual(config.locations[0]?.events);
    expect((await loadConfig(single)).locations[0]?.events).toBeUndefined();
  });

  it('allows private addresses with REPLYFLOW_EVENTS_ALLOW_PRIVATE=1', async () => {
    const config = await loadConfig({
      ...single,
      REPLYFLOW_EVENTS_URL: 'http://127.0.0.1:4000/hook',
      REPLYFLOW_EVENTS_SECRET: secret,
      REPLYFLOW_EVENTS_ALLOW_PRIVATE: '1',
    });
    expect(config.locations[0]?.events?.[0]?.allowPrivateAddresses).toBe(true);
  });

  it('keeps the env subscription without a key pair, for the location replyflow dev makes', async () => {
    const config = await loadConfig({
      REPLYFLOW_EVENTS_URL: 'http://localhost:4000/hook',
      REPLYFLOW_EVENTS_SECRET: secret,
    });
    expect(config.locations).toEqual([]);
    expect(config.events).toEqual([{ url: 'http://localhost:4000/hook', secret }]);
  });

  it('refuses http to a host other than loopback, naming the variable', async () => {
    const message = await failure({
      ...single,
      REPLYFLOW_EVENTS_URL: 'http://booking.example.com/replyflow',
      REPLYFLOW_EVENTS_SECRET: secret,
    });
    expect(message).toMatch(/REPLYFLOW_EVENTS_URL must be https \(http only to 127\.0\.0\.1/);
    for (const url of ['http://127.0.0.2:80/', 'http://[::1]:4000/', 'http://localhost/']) {
      const env = { ...single, REPLYFLOW_EVENTS_URL: url, REPLYFLOW_EVENTS_SECRET: secret };
      expect(await failure(env), url).toBe('accepted');
    }
    const notAUrl = await failure({
      ...single,
      REPLYFLOW_EVENTS_URL: 'booking',
      REPLYFLOW_EVENTS_SECRET: secret,
    });
    expect(notAUrl).toMatch(/REPLYFLOW_EVENTS_URL must be a URL/);
  });

  it('refuses a bad or missing secret, saying how to make one', async () => {
    const url = 'https://booking.example.com/replyflow';
    const bad = await failure({
      ...single,
      REPLYFLOW_EVENTS_URL: url,
      REPLYFLOW_EVENTS_SECRET: 'hunter2',
    });
    expect(bad).toMatch(/REPLYFLOW_EVENTS_SECRET must start with whsec_/);
    expect(bad).toContain('openssl rand -base64 32');
    const missing = await failure({ ...single, REPLYFLOW_EVENTS_URL: url });
    expect(missing).toMatch(/REPLYFLOW_EVENTS_SECRET is required with REPLYFLOW_EVENTS_URL/);
    const noUrl = await failure({ ...single, REPLYFLOW_EVENTS_SECRET: secret });
    expect(noUrl).toMatch(/REPLYFLOW_EVENTS_URL is required/);
  });

  it('reads events per location from the config file', async () => {
    const file = await configFile([
      { url: 'https://crm.example.com/in', secret, types: ['optout', 'optin'] },
      { url: 'http://127.0.0.1:9000/', secret, allowPrivateAddresses: true },
    ]);
    const config = await loadConfig({ REPLYFLOW_CONFIG: file });
    expect(config.locations[0]?.events).toEqual([
      { url: 'https://crm.example.com/in', secret, types: ['optout', 'optin'] },
      { url: 'http://127.0.0.1:9000/', secret, allowPrivateAddresses: true },
    ]);
  });

  it('names the bad field of a subscription in the config file', async () => {
    const file = await configFile([
      { url: 'http://10.0.0.5/in', secret },
      { url: 'https://crm.example.com/in', secret: 'whsec_c2hvcnQ=' },
      { url: 'https://crm.example.com/in', secret, types: [''] },
    ]);
    const message = await failure({ REPLYFLOW_CONFIG: file });
    expect(message).toMatch(/locations\.0\.events\.0\.url must be https/);
    expect(message).toMatch(/locations\.0\.events\.1\.secret must decode to 24 to 64 bytes/);
    expect(message).toMatch(/locations\.0\.events\.2\.types\.0 must be non-empty/);
  });
});
