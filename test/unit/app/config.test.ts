import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/app/config.ts';

const single = {
  REPLYFLOW_PROVIDER_URL: 'https://api.example.com/v1/',
  REPLYFLOW_API_KEY_ID: 'key',
  REPLYFLOW_API_KEY_SECRET: 'secret',
  REPLYFLOW_LOCATION: 'paris',
  REPLYFLOW_WEBHOOK_SECRET: '0123456789abcdef0123',
};

describe('loadConfig', () => {
  it('reads one location from env, with defaults', async () => {
    const config = await loadConfig(single);
    expect(config.locations).toEqual([
      {
        name: 'paris',
        providerUrl: 'https://api.example.com/v1',
        apiKeyId: 'key',
        apiKeySecret: 'secret',
        webhookSecret: '0123456789abcdef0123',
        rateLimitPerSecond: 10,
      },
    ]);
    expect(config).toMatchObject({
      port: 3000,
      redisUrl: undefined,
      redisPrefix: 'rf:',
      logLevel: 'info',
    });
    expect(config.botsDir).toMatch(/\/bots$/);
  });

  it('sends 32 at once and gives a send in doubt 30 s by default; both can be set', async () => {
    expect(await loadConfig(single)).toMatchObject({ sendConcurrency: 32, inDoubtGraceMs: 30_000 });
    expect(
      await loadConfig({
        ...single,
        REPLYFLOW_SEND_CONCURRENCY: '1',
        REPLYFLOW_IN_DOUBT_GRACE: '2m',
      }),
    ).toMatchObject({ sendConcurrency: 1, inDoubtGraceMs: 120_000 });
    const message = await loadConfig({ ...single, REPLYFLOW_IN_DOUBT_GRACE: 'soon' }).catch(
      (e: Error) => e.message,
    );
    expect(message).toContain('REPLYFLOW_IN_DOUBT_GRACE');
    expect(message).toContain('must be a duration such as 0s, 30s or 2m');
  });

  it('reads the lease and the send deadline as durations, and refuses a lease under 1 s', async () => {
    expect(await loadConfig(single)).toMatchObject({ leaseMs: 30_000, sendDeadlineMs: 3_600_000 });
    expect(
      await loadConfig({ ...single, REPLYFLOW_LEASE: '2m', REPLYFLOW_SEND_DEADLINE: '2d' }),
    ).toMatchObject({ leaseMs: 120_000, sendDeadlineMs: 172_800_000 });
    const refusal = (env: Record<string, string>) =>
      loadConfig({ ...single, ...env }).catch((e: Error) => e.message);
    const short = await refusal({ REPLYFLOW_LEASE: '500ms' });
    expect(short).toContain('REPLYFLOW_LEASE');
    expect(short).toContain('must be a duration of at least 1s');
    expect(await refusal({ REPLYFLOW_SEND_DEADLINE: 'later' })).toContain(
      'must be a duration such as 30m, 1h or 2d',
    );
  });

  it('reads the env location’s loop guard as <max>/<window>, and refuses another form', async () => {
    const config = await loadConfig({ ...single, REPLYFLOW_LOOP_GUARD: '30/1h' });
    expect(config.locations[0]?.compliance).toEqual({ loopGuard: { max: 30, window: '1h' } });
    await expect(loadConfig({ ...single, REPLYFLOW_LOOP_GUARD: 'ten a minute' })).rejects.toThrow(
      /REPLYFLOW_LOOP_GUARD must be <max>\/<window>/,
    );
  });

  it('has no location at all when nothing is set (dev then runs the emulator)', async () => {
    expect((await loadConfig({})).locations).toEqual([]);
  });

  it('names every bad variable and says what it expects', async () => {
    const error = await loadConfig({
      ...single,
      REPLYFLOW_PROVIDER_URL: 'https://api.example.com/v2',
      REPLYFLOW_API_KEY_SECRET: '',
      REPLYFLOW_WEBHOOK_SECRET: 'short',
      PORT: 'eighty',
    }).catch((e: Error) => e);
    expect(error).toMatchObject({ code: 'CONFIG_INVALID' });
    const message = (error as Error).message;
    expect(message).toContain('PORT');
    const envError = await loadConfig({
      ...single,
      REPLYFLOW_PROVIDER_URL: 'https://api.example.com/v2',
      REPLYFLOW_API_KEY_SECRET: '',
      REPLYFLOW_WEBHOOK_SECRET: 'short',
    }).catch((e: Error) => e.message);
    expect(envError).toContain('REPLYFLOW_PROVIDER_URL must end with /v1');
    expect(envError).toContain('REPLYFLOW_API_KEY_SECRET is required');
    expect(envError).toContain('REPLYFLOW_WEBHOOK_SECRET must be at least 16 characters');
  });

  it('refuses a webhook secret with a character the URL would change, saying how to make one', async () => {
    // `openssl rand -base64 16` gives such secrets; each used to be accepted, then every
    // notification was answered 404.
    for (const character of ['/', '+', '=', '%', '#', '?', ' ']) {
      const secret = `0123456789${character}abcdef0123`;
      const message = await loadConfig({ ...single, REPLYFLOW_WEBHOOK_SECRET: secret }).catch(
        (e: Error) => e.message,
      );
      const lines = String(message).split('\n').slice(1);
      expect(lines, JSON.stringify(character)).toEqual([
        expect.stringMatching(/^ {2}- REPLYFLOW_WEBHOOK_SECRET .*openssl rand -hex 32$/),
      ]);
    }
    const hex = 'c0ffee0123456789abcdef0123456789';
    const config = await loadConfig({ ...single, REPLYFLOW_WEBHOOK_SECRET: `${hex}-_Az` });
    expect(config.locations[0]?.webhookSecret).toBe(`${hex}-_Az`);
  });

  it('refuses a default country that is no ISO code in every mode, dev included, and gives it to dev', async () => {
    // `replyflow dev` (no key pair, no location) took France silently; start refused it.
    for (const env of [{}, single]) {
      await expect(loadConfig({ ...env, REPLYFLOW_DEFAULT_COUNTRY: 'France' })).rejects.toThrow(
        /REPLYFLOW_DEFAULT_COUNTRY must be an ISO 3166 country code such as FR/,
      );
    }
    expect((await loadConfig({ REPLYFLOW_DEFAULT_COUNTRY: 'BE' })).defaultCountry).toBe('BE');
  });

  it('refuses a REDIS_URL that is no Redis address, in one line that does not repeat it', async () => {
    // ioredis read `notaurl` as a host name and retried it ten times a second for ever.
    for (const url of [
      'notaurl',
      'http://h:6379',
      'redis://',
      'redis://h/db2',
      'redis://:hunter2@',
    ]) {
      const message = await loadConfig({ ...single, REDIS_URL: url }).catch(
        (e: Error) => e.message,
      );
      const lines = String(message).split('\n').slice(1);
      expect(lines, url).toEqual([
        expect.stringMatching(/^ {2}- REDIS_URL must be redis:\/\/host:port/),
      ]);
      expect(message).not.toContain('hunter2');
    }
    for (const url of [
      'redis://127.0.0.1:6379',
      'rediss://u:p@redis.example.com:6380/2',
      '/run/redis.sock',
    ]) {
      expect((await loadConfig({ ...single, REDIS_URL: url })).redisUrl).toBe(url);
    }
  });

  it('reads several locations from the REPLYFLOW_CONFIG file, and names the bad field', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rf-config-'));
    const file = join(dir, 'replyflow.config.json');
    const location = (name: string) => ({
      name,
      providerUrl: 'https://api.example.com/v1',
      apiKeyId: `${name}-key`,
      apiKeySecret: `${name}-secret`,
      webhookSecret: `${name}-webhook-secret-0123`,
    });
    await writeFile(file, JSON.stringify({ locations: [location('paris'), location('lyon')] }));
    const config = await loadConfig({ REPLYFLOW_CONFIG: file });
    expect(config.locations.map((l) => [l.name, l.apiKeyId])).toEqual([
      ['paris', 'paris-key'],
      ['lyon', 'lyon-key'],
    ]);

    await writeFile(
      file,
      JSON.stringify({
        locations: [location('paris'), { ...location('paris'), providerUrl: 'ftp://x' }],
      }),
    );
    const message = await loadConfig({ REPLYFLOW_CONFIG: file }).catch((e: Error) => e.message);
    expect(message).toContain('locations.1.providerUrl');
    expect(message).toContain('location names must be unique');
  });

  it('refuses two locations that share a key pair, naming both', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rf-config-'));
    const file = join(dir, 'replyflow.config.json');
    const location = (name: string, apiKeyId: string) => ({
      name,
      providerUrl: 'https://api.example.com/v1',
      apiKeyId,
      apiKeySecret: 'same-secret',
      webhookSecret: `${name}-webhook-secret-0123`,
    });
    await writeFile(
      file,
      JSON.stringify({
        locations: [location('paris', 'k1'), location('lyon', 'k2'), location('nice', 'k1')],
      }),
    );
    const message = await loadConfig({ REPLYFLOW_CONFIG: file }).catch((e: Error) => e.message);
    expect(message).toMatch(/'paris' and 'nice' use the same key pair \(API key id 'k1'\)/);
    expect(message).not.toContain("'lyon'");
    // The same key id on another service is another key pair.
    await writeFile(
      file,
      JSON.stringify({
        locations: [
          location('paris', 'k1'),
          { ...location('lyon', 'k1'), providerUrl: 'https://eu.example.com/v1' },
        ],
      }),
    );
    expect((await loadConfig({ REPLYFLOW_CONFIG: file })).locations).toHaveLength(2);
  });

  it('reads the operations variables, with their defaults', async () => {
    const defaults = await loadConfig(single);
    expect(defaults).toMatchObject({ maxInflight: 512, stopTimeoutMs: 10_000 });
    expect(defaults.adminToken).toBeUndefined();
    expect(defaults.healthPort).toBeUndefined();
    const set = await loadConfig({
      ...single,
      REPLYFLOW_ADMIN_TOKEN: '9f2c4e7a1b3d5f60c8e2a4b6d8f01357',
      REPLYFLOW_MAX_INFLIGHT: '64',
      REPLYFLOW_STOP_TIMEOUT: '3s',
      REPLYFLOW_HEALTH_PORT: '9464',
    });
    expect(set).toMatchObject({
      adminToken: '9f2c4e7a1b3d5f60c8e2a4b6d8f01357',
      maxInflight: 64,
      stopTimeoutMs: 3_000,
      healthPort: 9464,
    });
    const message = await loadConfig({
      ...single,
      REPLYFLOW_ADMIN_TOKEN: 'short',
      REPLYFLOW_STOP_TIMEOUT: 'soon',
    }).catch((e: Error) => e.message);
    expect(message).toContain(
      'REPLYFLOW_ADMIN_TOKEN must be a random value of at least 32 characters',
    );
    expect(message).toContain('REPLYFLOW_STOP_TIMEOUT must be a duration');
  });

  it('says how to fix an unreadable config file', async () => {
    await expect(loadConfig({ REPLYFLOW_CONFIG: '/nope/replyflow.config.json' })).rejects.toThrow(
      /REPLYFLOW_CONFIG=\/nope\/replyflow.config.json: cannot read/,
    );
  });
});
