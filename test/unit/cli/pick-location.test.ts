import { describe, expect, it } from 'vitest';
import type { LocationConfig } from '../../../src/app/config.ts';
import { pickLocation } from '../../../src/cli/open-messaging-client.ts';
import { ConfigError } from '../../../src/errors.ts';

const location = (name: string): LocationConfig => ({
  name,
  providerUrl: 'https://api.example.com/v1',
  apiKeyId: `${name}-key`,
  apiKeySecret: `${name}-secret`,
  rateLimitPerSecond: 10,
});

describe('pickLocation', () => {
  it('takes the first location when none is asked for', () => {
    expect(pickLocation({ locations: [location('paris'), location('lyon')] }, undefined).name).toBe(
      'paris',
    );
  });

  it('takes the one named by --location', () => {
    expect(pickLocation({ locations: [location('paris'), location('lyon')] }, 'lyon').name).toBe(
      'lyon',
    );
  });

  it('lists the configured names when the asked one is unknown', () => {
    expect(() => pickLocation({ locations: [location('paris')] }, 'nice')).toThrow(
      "unknown location 'nice': the configured locations are 'paris'",
    );
  });

  it('says which env vars to set when no location is configured', () => {
    expect(() => pickLocation({ locations: [] }, undefined)).toThrow(ConfigError);
    expect(() => pickLocation({ locations: [] }, undefined)).toThrow(
      /REPLYFLOW_PROVIDER_URL.*REPLYFLOW_API_KEY_ID.*REPLYFLOW_API_KEY_SECRET/,
    );
  });
});
