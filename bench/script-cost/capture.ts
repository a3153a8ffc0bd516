// One real turn, recorded: replyflow (bench/reply-loop's process, echo bot) against the
// emulator on a redis-server of the bench's own; a conversation is started and given N replies,
// then the keyspace is saved and the next reply's turn runs under MONITOR. What Redis ran
// (every top-level command, with its arguments) and the keyspace before it are what the
// script loops replay. Also counts the commands of the idle process (polls, sweeps).
import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import { request } from 'undici';
import { type BenchChild, startChild } from '../lib/child.ts';
import { randomPrefix } from '../lib/redis.ts';
import { phoneNumber, replyNotification } from '../reply-loop/wiring.ts';
import { type MonitoredCommand, startMonitor } from './monitor.ts';

/** A key as DUMP gives it, with its time to live (ms; 0 for none). */
export interface KeyState {
  key: Buffer;
  dump: Buffer;
  pttl: number;
}

export interface CapturedTurn {
  /** Replies answered in the conversation before this one (its start not counted). */
  history: number;
  /** The whole keyspace before the turn. */
  before: KeyState[];
  /** The top-level commands Redis ran from the notification until 500 ms after its SMS. */
  commands: MonitoredCommand[];
  /** Wall time of that window, ms. */
  windowMs: number;
}

export interface IdleCount {
  seconds: number;
  /** Top-level commands by name (a script by its file), per second. */
  perSecond: Record<string, number>;
}

const appClientCommands = new Set(['client', 'info', 'select', 'hello', 'ping']);

/** Records one turn per history length, and the idle commands, then stops replyflow. */
export async function captureTurns(
  redisUrl: string,
  redis: Redis,
  histories: readonly number[],
  idleSeconds: number,
  nameOf: (command: MonitoredCommand) => string,
): Promise<{ turns: CapturedTurn[]; idle: IdleCount }> {
  const emulator = await startChild<{ baseUrl: string }>(
    new URL('../reply-loop/emulator-process.ts', import.meta.url),
    [],
  );
  let sut: BenchChild<{ webhookUrl: string }> | undefined;
  try {
    sut = await startChild<{ webhookUrl: string }>(
      new URL('../reply-loop/sut-process.ts', import.meta.url),
      ['replyflow'],
      {
        env: {
          BENCH_REDIS_URL: redisUrl,
          BENCH_PREFIX: randomPrefix('bench-script-cost'),
          BENCH_PROVIDER_URL: emulator.ready.baseUrl,
          BENCH_REPLYFLOW_ENV: '{}',
          // The server is the bench's own and is thrown away.
          BENCH_KEEP_KEYS: '1',
        },
      },
    );
    const url = sut.ready.webhookUrl;
    let sent = 0;
    await emulator.ask('reset', { full: true });
    // One notification, answered 2xx, and its SMS at the emulator.
    const turn = async (phone: string) => {
      const n = sent++;
      const answer = await request(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: replyNotification(`script-cost-${n}`, phone, `ECHO ${n}`),
      });
      await answer.body.dump();
      if (answer.statusCode >= 300) throw new Error(`webhook answered ${answer.statusCode}`);
      for (let waited = 0; ; waited += 10) {
        const { count } = await emulator.ask<{ count: number }>('stats');
        if (count >= sent) break;
        if (waited > 10_000) throw new Error(`no SMS for notification ${n} within 10 s`);
        await sleep(10);
      }
      // The sender records the send after the service's answer: let it finish.
      await sleep(500);
    };
    // Every process warms up (connections, scripts loaded) on a phone of its own.
    for (let i = 0; i < 5; i++) await turn(phoneNumber(900));
    const turns: CapturedTurn[] = [];
    for (const history of histories) {
      const phone = phoneNumber(history);
      for (let i = 0; i <= history; i++) await turn(phone);
      const before = await saveKeyspace(redis);
      const monitor = await startMonitor(redisUrl);
      const startedAt = Date.now();
      await turn(phone);
      const seen = await monitor.stop();
      turns.push({
        history,
        before,
        commands: seen.filter((c) => c.source !== 'lua' && !appClientCommands.has(c.name)),
        windowMs: Date.now() - startedAt,
      });
    }
    // At rest: what the process sends when nothing happens.
    await sleep(2_000);
    const monitor = await startMonitor(redisUrl);
    await sleep(idleSeconds * 1000);
    const idleSeen = await monitor.stop();
    const perSecond: Record<string, number> = {};
    for (const command of idleSeen.filter((c) => c.source !== 'lua')) {
      const name = nameOf(command);
      perSecond[name] = (perSecond[name] ?? 0) + 1 / idleSeconds;
    }
    return { turns, idle: { seconds: idleSeconds, perSecond } };
  } finally {
    await sut?.close();
    await emulator.close();
  }
}

/** Every key of the server, dumped. */
export async function saveKeyspace(redis: Redis): Promise<KeyState[]> {
  const keys: Buffer[] = [];
  let cursor = '0';
  do {
    const [next, found] = await redis.scanBuffer(cursor, 'COUNT', 1000);
    cursor = String(next);
    keys.push(...found);
  } while (cursor !== '0');
  const pipeline = redis.pipeline();
  for (const key of keys) {
    pipeline.dumpBuffer(key);
    pipeline.pttl(key);
  }
  const answers = (await pipeline.exec()) ?? [];
  const states: KeyState[] = [];
  keys.forEach((key, i) => {
    const dump = answers[2 * i]?.[1] as Buffer | null;
    const pttl = Number(answers[2 * i + 1]?.[1]);
    if (dump) states.push({ key, dump, pttl: Math.max(pttl, 0) });
  });
  return states;
}

/** Empties the server (its scripts stay) and puts `states` back. */
export async function loadKeyspace(redis: Redis, states: readonly KeyState[]): Promise<void> {
  await redis.flushall('SYNC');
  const pipeline = redis.pipeline();
  for (const { key, dump, pttl } of states) pipeline.restore(key, pttl, dump, 'REPLACE');
  await pipeline.exec();
}
