import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { systemClock } from '../../../src/scheduler/clock.ts';
import { createScheduler } from '../../../src/scheduler/create-scheduler.ts';
import { createQueueConsumer } from '../../../src/store/create-queue-consumer.ts';
import { createMemoryStore } from '../../../src/store/memory/create-memory-store.ts';
import type { Store } from '../../../src/store/store.ts';
import { StoreUnavailableError } from '../../../src/store/store-errors.ts';
import { storeOutage } from '../../../src/store/store-outage.ts';
import { LogCapture } from '../../support/log-capture.ts';

function capture() {
  const logs = new LogCapture();
  const logger = pino({ level: 'debug' }, logs.stream);
  const parsed = () =>
    logs.lines.map((line) => JSON.parse(line) as { level: number; msg: string; code?: string });
  return { logs, logger, parsed };
}

const down = () => new StoreUnavailableError('Redis did not answer claim (connect ECONNREFUSED)');

describe('storeOutage', () => {
  it('logs an outage once, without a stack, and its end once; anything else each time', () => {
    const { logs, logger, parsed } = capture();
    const outage = storeOutage({});
    for (let i = 0; i < 5; i++)
      outage.failed(logger, down(), 'queue lane failed', { queue: 'inbox' });
    outage.answered(logger);
    outage.answered(logger);
    outage.failed(logger, new TypeError('a bug'), 'queue lane failed');
    outage.failed(logger, new TypeError('a bug'), 'queue lane failed');
    const above = parsed().filter((line) => line.level >= 30);
    expect(above.map((line) => [line.level, line.code, line.msg.split(':')[0]])).toEqual([
      [40, 'STORE_UNAVAILABLE', 'queue lane failed'],
      [30, undefined, 'the store answers again'],
      [50, undefined, 'queue lane failed'],
      [50, undefined, 'queue lane failed'],
    ]);
    expect(logs.lines.slice(0, 5).join('\n')).not.toContain('    at ');
  });

  it('is one per store, so that what one part of the process reported the others do not', () => {
    const { logger, parsed } = capture();
    const store = {};
    storeOutage(store).reported();
    storeOutage(store).failed(logger, down(), 'scheduler round failed');
    storeOutage({}).failed(logger, down(), 'another store');
    expect(
      parsed()
        .filter((line) => line.level >= 40)
        .map((line) => line.msg),
    ).toEqual([expect.stringMatching(/^another store: /)]);
  });
});

describe('while the store is down', () => {
  it('the lanes, the safety sweep and the scheduler log one line between them', async () => {
    const { logs, logger, parsed } = capture();
    const memory = createMemoryStore({});
    const failing = async () => {
      throw down();
    };
    const store: Store = {
      ...memory,
      claimMany: failing,
      nextReadyAt: failing,
      nextTimerDue: failing,
      claimDueTimers: failing,
    };
    const consumer = createQueueConsumer({
      store,
      queue: 'inbox',
      clock: systemClock,
      logger,
      concurrency: 8,
      leaseMs: 30_000,
      idleMs: 50,
      handle: async () => {},
    });
    const scheduler = createScheduler({ store, clock: systemClock, logger, safetyMs: 50 });
    consumer.start();
    scheduler.start();
    await sleep(1_000);
    await consumer.stop();
    await scheduler.stop();
    const above = parsed().filter((line) => line.level >= 40);
    expect(above, logs.lines.join('\n')).toHaveLength(1);
    expect(above[0]).toMatchObject({ level: 40, code: 'STORE_UNAVAILABLE' });
    // It went on trying meanwhile, at debug.
    expect(parsed().filter((line) => line.level === 20).length).toBeGreaterThan(8);
  });
});
