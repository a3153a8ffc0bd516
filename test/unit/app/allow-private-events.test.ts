import { describe, expect, it } from 'vitest';
import { allowPrivateEvents } from '../../../src/app/allow-private-events.ts';
import { loadConfig } from '../../../src/app/config.ts';
import { newEventSecret } from '../../../src/events/event-secret.ts';

describe("replyflow dev's subscriptions", () => {
  it('may reach private addresses, and locations without events stay as they were', async () => {
    const secret = newEventSecret();
    const config = await loadConfig({
      REPLYFLOW_PROVIDER_URL: 'https://api.example.com/v1',
      REPLYFLOW_API_KEY_ID: 'key',
      REPLYFLOW_API_KEY_SECRET: 'secret',
      REPLYFLOW_EVENTS_URL: 'http://localhost:4000/hook',
      REPLYFLOW_EVENTS_SECRET: secret,
    });
    expect(config.locations[0]?.events?.[0]?.allowPrivateAddresses).toBeUndefined();
    const dev = allowPrivateEvents(config);
    expect(dev.locations[0]?.events).toEqual([
      { url: 'http://localhost:4000/hook', secret, allowPrivateAddresses: true },
    ]);
    const none = { ...config, locations: [{ ...config.locations[0]!, events: undefined }] };
    expect(allowPrivateEvents(none).locations[0]).toBe(none.locations[0]);
  });
});
