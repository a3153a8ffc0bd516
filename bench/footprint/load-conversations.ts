import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { BenchChild } from '../lib/child.ts';
import { phoneNumber, replyNotification } from '../reply-loop/wiring.ts';
import { postNotifications } from './post-notifications.ts';
import { type EmulatorProgress, emulatorProgress, waitUntilSettled } from './wait-until-settled.ts';

export interface LoadedConversations {
  /** Conversations started: keyword notifications acknowledged 2xx. */
  conversations: number;
  /** Keyword notifications with no 2xx after their retries (each a conversation missing). */
  failed: number;
  /** Notification attempts retried after a non-2xx answer. */
  retried: number;
  /** SMS the emulator received during the phase (one answer per conversation). */
  sms: number;
  /** Status notifications the emulator delivered to the webhook during the phase (2xx). */
  statusNotifications: number;
  /** Status delivery attempts refused or failed (each retried by the emulator). */
  failedStatusAttempts: number;
  /** From the first notification to the last acknowledgement, ms. */
  loadMs: number;
  /** From the first notification until the loop was at rest, ms. */
  settledMs: number;
}

/**
 * Starts `count` conversations, one per phone (`phoneNumber(firstPhone)` on), each with one
 * keyword reply notification (`<keyword> <n>`) posted to the webhook, at most `concurrency`
 * in flight and at most `backlog` acknowledged ahead of the SMS the emulator received (so the
 * SUT works in a steady state rather than on a queue of a whole phase). Then waits until the
 * loop is at rest (`waitUntilSettled`): every answer sent, every status delivered and applied.
 * Logs a progress line every `progressMs`.
 */
export async function loadConversations(options: {
  label: string;
  webhookUrl: string;
  emulator: BenchChild<unknown>;
  redis: Redis;
  /** The store's ready sets; empty for the naive baseline, which has none. */
  readyKeys: readonly string[];
  keyword: string;
  count: number;
  firstPhone: number;
  concurrency: number;
  backlog: number;
  log: (line: string) => void;
  progressMs?: number;
}): Promise<LoadedConversations> {
  const { emulator, log, label } = options;
  const start = await emulatorProgress(emulator);
  const tag = randomBytes(4).toString('hex');
  const started = Date.now();
  let acked = 0;
  let latest: EmulatorProgress = start;
  let stopped = false;
  // The back-pressure's view of the emulator, refreshed in the background.
  const watcher = (async () => {
    while (!stopped) {
      latest = await emulatorProgress(emulator);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  const progressMs = options.progressMs ?? 10_000;
  let lastLine = started;
  const progressLine = (what: string) => {
    if (Date.now() - lastLine < progressMs) return;
    lastLine = Date.now();
    log(
      `  ${label}: ${what} ${acked.toLocaleString('en')}/${options.count.toLocaleString('en')} acked, ` +
        `${(latest.sms - start.sms).toLocaleString('en')} SMS, ` +
        `${(latest.deliveries.ok - start.deliveries.ok).toLocaleString('en')} status notifications, ` +
        `${((Date.now() - started) / 1000).toFixed(0)} s`,
    );
  };
  let posted: Awaited<ReturnType<typeof postNotifications>>;
  try {
    posted = await postNotifications({
      url: options.webhookUrl,
      count: options.count,
      concurrency: options.concurrency,
      body: (i) =>
        replyNotification(
          `${tag}-${i}`,
          phoneNumber(options.firstPhone + i),
          `${options.keyword} ${i}`,
        ),
      gate: async () => {
        while (acked - (latest.sms - start.sms) > options.backlog) {
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      },
      onAcked: (n) => {
        acked = n;
        progressLine('loading');
      },
    });
  } finally {
    stopped = true;
    await watcher;
  }
  const loadMs = Date.now() - started;
  const settled = await waitUntilSettled({
    redis: options.redis,
    emulator,
    readyKeys: options.readyKeys,
    sms: start.sms + posted.acked,
    onPoll: (progress) => {
      latest = progress;
      progressLine('settling');
    },
  });
  return {
    conversations: posted.acked,
    failed: posted.failed,
    retried: posted.retried,
    sms: settled.sms - start.sms,
    statusNotifications: settled.deliveries.ok - start.deliveries.ok,
    failedStatusAttempts: settled.deliveries.failedAttempts - start.deliveries.failedAttempts,
    loadMs,
    settledMs: Date.now() - started,
  };
}
