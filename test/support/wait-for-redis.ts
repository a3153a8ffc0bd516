import { Redis } from 'ioredis';

/**
 * Waits until the Redis at `url` answers (a server just started takes a moment), and resolves
 * to its version. Rejects after `timeoutMs` with the last connection error as the cause.
 */
export async function waitForRedis(url: string, timeoutMs = 10_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    const redis = new Redis(url, {
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    redis.on('error', (error) => {
      lastError = error;
    });
    try {
      await redis.connect();
      const info = await redis.info('server');
      return /redis_version:(\S+)/.exec(info)?.[1] ?? 'unknown';
    } catch (error) {
      lastError = error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    } finally {
      redis.disconnect();
    }
  }
  throw new Error(`Redis at ${url} did not answer within ${timeoutMs / 1000} s`, {
    cause: lastError,
  });
}
