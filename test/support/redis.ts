import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { inject } from 'vitest';

/** The URL of the test Redis found or started by `global-redis.ts`. */
export function testRedisUrl(): string {
  return inject('redisUrl');
}

/** A random key prefix, one per test file or test, so tests never see each other's keys. */
export function randomPrefix(label = 'test'): string {
  return `${label}:${randomBytes(6).toString('hex')}:`;
}

/** A connection to the test Redis. Close it in `afterAll`. */
export function connectTestRedis(): Redis {
  return new Redis(testRedisUrl(), { maxRetriesPerRequest: 1 });
}

/** `host:port` of each master of the test Redis Cluster started by `global-redis.ts`. */
export function testClusterNodes(): string[] {
  return inject('redisClusterNodes');
}
