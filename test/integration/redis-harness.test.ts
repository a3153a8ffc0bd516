import { afterAll, describe, expect, it } from 'vitest';
import { connectTestRedis, randomPrefix } from '../support/redis.ts';

describe('test harness', () => {
  const redis = connectTestRedis();
  afterAll(() => redis.quit());

  it('reaches a real Redis under a random prefix', async () => {
    const key = `${randomPrefix()}probe`;
    await redis.set(key, 'ok', 'EX', 10);
    expect(await redis.get(key)).toBe('ok');
    expect(randomPrefix()).not.toBe(randomPrefix());
  });
});
