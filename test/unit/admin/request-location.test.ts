import { describe, expect, it } from 'vitest';
import { requestLocation } from '../../../src/admin/request-location.ts';
import type { LocationConfig } from '../../../src/app/config.ts';

const location = (name: string) => ({ name }) as LocationConfig;

describe('requestLocation', () => {
  it('takes the only location, or the one named', () => {
    expect(requestLocation([location('paris')], undefined)).toEqual({ name: 'paris' });
    expect(requestLocation([location('paris'), location('nice')], 'nice')).toEqual({
      name: 'nice',
    });
  });

  it('asks for a name when several are configured, naming them', () => {
    expect(requestLocation([location('paris'), location('nice')], undefined)).toBe(
      'location is required: this server has several (paris, nice)',
    );
  });

  it('says that none is configured, and how to configure one, when there is none', () => {
    // Was: "location is required: this server has several ((none))".
    expect(requestLocation([], undefined)).toBe(
      'no location is configured: set REPLYFLOW_PROVIDER_URL, REPLYFLOW_API_KEY_ID and REPLYFLOW_API_KEY_SECRET (and REPLYFLOW_LOCATION to name it), or REPLYFLOW_CONFIG',
    );
    expect(requestLocation([], 'paris')).toBe(
      "unknown location 'paris': no location is configured: set REPLYFLOW_PROVIDER_URL, REPLYFLOW_API_KEY_ID and REPLYFLOW_API_KEY_SECRET (and REPLYFLOW_LOCATION to name it), or REPLYFLOW_CONFIG",
    );
  });
});
