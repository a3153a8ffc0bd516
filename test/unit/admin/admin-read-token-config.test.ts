import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/app/config.ts';

const admin = '9f2c41d7b0e85a3f6c19d4e7a2b80f5c3e61d9a4b7c20e8f1a5d3c9b6e4f7a2d';
const read = '4b8e1f0a7d3c6e9b2f5a8d1c4e7b0a3f6d9c2e5b8a1f4d7c0e3b6a9f2d5c8e1b';

describe('REPLYFLOW_ADMIN_READ_TOKEN and REPLYFLOW_TRUST_PROXY', () => {
  it('reads the read-only token with the admin token’s rule, trimmed', async () => {
    const config = await loadConfig({
      REPLYFLOW_ADMIN_TOKEN: admin,
      REPLYFLOW_ADMIN_READ_TOKEN: ` ${read}\n`,
    });
    expect(config.adminReadToken).toBe(read);
    await expect(loadConfig({ REPLYFLOW_ADMIN_READ_TOKEN: 'short' })).rejects.toThrow(
      /REPLYFLOW_ADMIN_READ_TOKEN must be a random value of at least 32 characters/,
    );
  });

  it('refuses a read-only token equal to the admin token', async () => {
    await expect(
      loadConfig({ REPLYFLOW_ADMIN_TOKEN: admin, REPLYFLOW_ADMIN_READ_TOKEN: admin }),
    ).rejects.toThrow(/REPLYFLOW_ADMIN_READ_TOKEN equals REPLYFLOW_ADMIN_TOKEN/);
  });

  it('reads the proxies to trust as hops or addresses, and refuses true', async () => {
    expect((await loadConfig({ REPLYFLOW_TRUST_PROXY: '1' })).trustProxy).toBe(1);
    expect(
      (await loadConfig({ REPLYFLOW_TRUST_PROXY: 'loopback, 10.0.0.0/8' })).trustProxy,
    ).toEqual(['loopback', '10.0.0.0/8']);
    expect((await loadConfig({})).trustProxy).toBeUndefined();
    await expect(loadConfig({ REPLYFLOW_TRUST_PROXY: 'true' })).rejects.toThrow(
      /REPLYFLOW_TRUST_PROXY must be/,
    );
  });
});
