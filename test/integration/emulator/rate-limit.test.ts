import { afterEach, describe, expect, it } from 'vitest';
import type { RequestLogEntry } from '../../../src/emulator/index.ts';
import { apiErrorBodySchema } from '../../../src/provider/schemas/api-error.ts';
import { lyon, mobile, startTestEmulator, type TestEmulator } from './harness.ts';

describe('rate limit (spec §8)', () => {
  let emulator: TestEmulator;
  afterEach(() => emulator.close());

  async function burst(count: number, keyPair = undefined as typeof lyon | undefined) {
    return Promise.all(
      Array.from({ length: count }, () => emulator.api('GET', '/webhooks', undefined, keyPair)),
    );
  }

  it('refuses requests beyond the limit with 429, an integer Retry-After and the error body', async () => {
    emulator = await startTestEmulator({ rateLimitPerSecond: 5 });
    const answers = await burst(8);
    expect(answers.filter((a) => a.status === 200)).toHaveLength(5);
    const refused = answers.filter((a) => a.status === 429);
    expect(refused).toHaveLength(3);
    for (const answer of refused) {
      expect(answer.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
      expect(apiErrorBodySchema.parse(answer.body).error).toMatchObject({
        status: 429,
        code: 'RATE_LIMITED',
      });
    }
  });

  it('counts every endpoint, POST /sms included', async () => {
    emulator = await startTestEmulator({ rateLimitPerSecond: 3 });
    await burst(2);
    expect((await emulator.api('POST', '/sms', { to: mobile(), body: 'Hi' })).status).toBe(201);
    expect((await emulator.api('POST', '/sms', { to: mobile(), body: 'Hi' })).status).toBe(429);
    expect((await emulator.api('GET', '/groups')).status).toBe(429);
  });

  it('limits each key pair on its own', async () => {
    emulator = await startTestEmulator({ rateLimitPerSecond: 2 });
    await burst(3);
    expect((await burst(2, lyon)).map((a) => a.status)).toEqual([200, 200]);
  });

  it('never accepts more than the limit in any one-second window, and accepts again once a slot frees', async () => {
    const limit = 20;
    emulator = await startTestEmulator({ rateLimitPerSecond: limit });
    const until = Date.now() + 1500;
    // Four clients hammering for 1.5 s: far above the limit.
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        while (Date.now() < until) await emulator.api('GET', '/webhooks');
      }),
    );
    const log: RequestLogEntry[] = (await emulator.control('GET', '/requests')).body;
    const accepted = log.filter((entry) => entry.status === 200).map((entry) => entry.at);
    expect(log.some((entry) => entry.status === 429)).toBe(true);
    for (const start of accepted) {
      expect(accepted.filter((at) => at >= start && at < start + 1000).length).toBeLessThanOrEqual(
        limit,
      );
    }
    // The window slid: more than one second's worth got through over 1.5 s.
    expect(accepted.length).toBeGreaterThan(limit);
  });

  it('accepts again once the second has passed, and Retry-After is long enough', async () => {
    emulator = await startTestEmulator({ rateLimitPerSecond: 1 });
    await burst(1);
    const [refused] = await burst(1);
    expect(refused?.status).toBe(429);
    const retryAfterMs = Number(refused?.headers.get('retry-after')) * 1000;
    // Waiting exactly what Retry-After says is the behaviour under test, so this sleep is the point.
    await new Promise((resolve) => setTimeout(resolve, retryAfterMs));
    expect((await burst(1))[0]?.status).toBe(200);
    const log: RequestLogEntry[] = (await emulator.control('GET', '/requests')).body;
    const [first, second] = log.filter((entry) => entry.status === 200);
    expect((second?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThanOrEqual(1000);
  });

  it('changes with PUT /_emulator/rate-limit, and null lifts it', async () => {
    emulator = await startTestEmulator();
    await emulator.control('PUT', '/rate-limit', { perSecond: 2 });
    expect((await burst(3)).map((a) => a.status).sort()).toEqual([200, 200, 429]);
    await emulator.control('PUT', '/rate-limit', { perSecond: null });
    expect((await burst(150)).every((a) => a.status === 200)).toBe(true);
  });

  it('is off with rateLimitPerSecond: Infinity', async () => {
    emulator = await startTestEmulator({ rateLimitPerSecond: Number.POSITIVE_INFINITY });
    expect((await burst(150)).every((a) => a.status === 200)).toBe(true);
  });
});
