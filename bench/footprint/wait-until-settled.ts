import type { Redis } from 'ioredis';
import type { BenchChild } from '../lib/child.ts';

/** What the emulator process answers to `stats` and `pending` (bench/reply-loop/emulator-process.ts). */
export interface EmulatorProgress {
  /** POST /v1/sms received since the last reset. */
  sms: number;
  rejected: number;
  /** Lifecycle timers and webhook deliveries not over yet. */
  pending: number;
  deliveries: { ok: number; failedAttempts: number; discarded: number };
}

/** Reads the emulator's counters. */
export async function emulatorProgress(emulator: BenchChild<unknown>): Promise<EmulatorProgress> {
  const [stats, pending] = await Promise.all([
    emulator.ask<{ count: number; rejected: number }>('stats'),
    emulator.ask<{ pending: number; deliveries: EmulatorProgress['deliveries'] }>('pending'),
  ]);
  return {
    sms: stats.count,
    rejected: stats.rejected,
    pending: pending.pending,
    deliveries: { ...pending.deliveries },
  };
}

/**
 * Waits until the loop is at rest: the emulator received at least `sms` POST /v1/sms, has no
 * lifecycle timer or webhook delivery left (every status it owes was answered), and every
 * ready set of the store is empty (no mailbox or outbox waits or is being worked on: a claimed
 * conversation stays in its ready set until its release). In that order, so that a status
 * acknowledged before the first read is in a ready set by the second. Throws when nothing
 * moves for `stallMs`. `onPoll` sees each reading (progress lines).
 */
export async function waitUntilSettled(options: {
  redis: Redis;
  emulator: BenchChild<unknown>;
  readyKeys: readonly string[];
  sms: number;
  stallMs?: number;
  onPoll?: (progress: EmulatorProgress, ready: number) => void;
}): Promise<EmulatorProgress> {
  const stallMs = options.stallMs ?? 60_000;
  let lastChange = Date.now();
  let lastSignature = '';
  for (;;) {
    const progress = await emulatorProgress(options.emulator);
    const pipeline = options.redis.pipeline();
    for (const key of options.readyKeys) pipeline.zcard(key);
    const ready = ((await pipeline.exec()) ?? []).reduce((sum, [, n]) => sum + Number(n), 0);
    options.onPoll?.(progress, ready);
    if (progress.sms >= options.sms && progress.pending === 0 && ready === 0) return progress;
    const signature = `${progress.sms} ${progress.pending} ${progress.deliveries.ok} ${ready}`;
    if (signature !== lastSignature) {
      lastSignature = signature;
      lastChange = Date.now();
    } else if (Date.now() - lastChange > stallMs) {
      throw new Error(
        `the loop did not settle: ${progress.sms} of ${options.sms} SMS, ${progress.pending} emulator tasks pending, ` +
          `${ready} conversations in ready sets, no change for ${stallMs / 1000} s`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
