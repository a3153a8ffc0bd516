import type { Redis } from 'ioredis';

/** `used_memory` from `INFO memory`: the bytes Redis's allocator holds for data and overhead. */
export async function readUsedMemory(redis: Redis): Promise<number> {
  const info = await redis.info('memory');
  const match = /^used_memory:(\d+)/m.exec(info);
  if (!match) throw new Error('INFO memory has no used_memory field');
  return Number(match[1]);
}

/**
 * Reads `used_memory` every `intervalMs` until two reads in a row differ by at most
 * `toleranceBytes` (clients' buffers and lazy frees move it a little after a load), and
 * resolves with the last read. Past `timeoutMs` it resolves with the last read anyway and
 * `stable: false`, for the report to say so.
 */
export async function waitForStableMemory(
  redis: Redis,
  options: { toleranceBytes?: number; intervalMs?: number; timeoutMs?: number } = {},
): Promise<{ bytes: number; stable: boolean }> {
  const tolerance = options.toleranceBytes ?? 64 * 1024;
  const interval = options.intervalMs ?? 1_000;
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  let last = await readUsedMemory(redis);
  while (Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, interval));
    const now = await readUsedMemory(redis);
    if (Math.abs(now - last) <= tolerance) return { bytes: now, stable: true };
    last = now;
  }
  return { bytes: last, stable: false };
}
