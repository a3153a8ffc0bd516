import { z } from 'zod';

/**
 * REDIS_URL as ioredis takes it: `redis://[user:password@]host[:port][/db]`, `rediss://…` for
 * TLS, or the absolute path of a Unix socket (`/run/redis/redis.sock`). Anything else is refused
 * at start: ioredis would read `notaurl` as a host name and retry it for ever. Empty is unset.
 * The value is never repeated in the error (it may hold a password).
 *
 * @example
 * redisUrlSchema.parse('redis://10.0.0.5:6379/2'); // 'redis://10.0.0.5:6379/2'
 */
export const redisUrlSchema = z.string().refine((value) => value === '' || isRedisUrl(value), {
  error:
    'must be redis://host:port (with user:password@ and /db if needed), rediss://… for TLS, or the absolute path of a Unix socket such as /run/redis/redis.sock',
});

function isRedisUrl(value: string): boolean {
  if (value.startsWith('/') && !value.startsWith('//')) return true;
  if (!/^rediss?:\/\//i.test(value) || !URL.canParse(value)) return false;
  const url = new URL(value);
  return (
    url.hostname !== '' && url.port !== '0' && /^(\/\d*)?$/.test(url.pathname) && url.hash === ''
  );
}
