import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createSender } from '../../../src/outbox/create-sender.ts';
import type { SmsGateway } from '../../../src/outbox/sms-gateway.ts';
import { createManualClock } from '../../../src/scheduler/create-manual-clock.ts';
import { createRedisStore } from '../../../src/store/redis/create-redis-store.ts';
import type { Store } from '../../../src/store/store.ts';
import { LogCapture } from '../../support/log-capture.ts';
import { randomPrefix, testRedisUrl } from '../../support/redis.ts';
import { connectRedis } from '../../support/reply-loop.ts';
import { waitFor } from '../../support/wait-for.ts';
import {
  location,
  outboundMessage,
  phonesInDistinctPartitions,
  queueOutbound,
  statusItem,
  t0,
} from '../store/contract/fixtures.ts';

const leaseMs = 3_000;
const graceMs = 2_000;

/** A service whose requests the test holds: each send is recorded once it passed `beforeRequest`. */
function gatewayOf(name: string) {
  const sent: string[] = [];
  let asked = 0;
  const gates: Array<() => void> = [];
  let hold = false;
  let beforeSlot: Promise<void> | undefined;
  const gateway: SmsGateway = {
    async send(_location, message, options) {
      asked++;
      // Waiting for its rate-limit slot, when told to.
      if (beforeSlot) await beforeSlot;
      await options?.beforeRequest?.();
      sent.push(message.body);
      const id = `${name}-${sent.length}`;
      // The service took the request; its answer comes when the test lets it.
      if (hold) await new Promise<void>((resolve) => gates.push(resolve));
      return { id };
    },
    async ping() {},
  };
  return {
    gateway,
    sent,
    /** Sends asked for, sent or not. */
    get asked() {
      return asked;
    },
    /** Holds the service's answers until `answer()`. */
    holdAnswers() {
      hold = true;
    },
    answer() {
      hold = false;
      for (const open of gates.splice(0)) open();
    },
    /** Holds the requests before their slot until the promise given resolves. */
    waitForSlot(until: Promise<void>) {
      beforeSlot = until;
    },
  };
}

describe('a live sender and the claim of its outbox', () => {
  const closers: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });

  async function setUp() {
    const clock = createManualClock(t0);
    const prefix = randomPrefix('live');
    const redis = connectRedis({ url: testRedisUrl(), prefix });
    const store = createRedisStore({ redis, prefix, onError: () => {} });
    closers.push(async () => {
      await store.close();
      redis.disconnect();
    });
    const [phone = ''] = phonesInDistinctPartitions(store, 1);
    const message = outboundMessage(phone, 'e-0:0', 'Your code is 4411');
    await queueOutbound(store, phone, [message], clock.now());
    const logs = new LogCapture();
    const senderOn = (storeOf: Store, gateway: SmsGateway) => {
      const sender = createSender({
        store: storeOf,
        gateway,
        clock,
        logger: pino({ level: 'info' }, logs.stream),
        leaseMs,
        inDoubtGraceMs: graceMs,
        sendsInFlight: 1,
        idleMs: 50,
      });
      sender.start();
      closers.push(() => sender.stop());
      return sender;
    };
    const partition = store.partitionOf(phone);
    const head = async () => (await store.pendingOutbound({ location, phone }))[0];
    /** Moves the clock a second at a time, each time until `settled` holds. */
    const steps = async (count: number, settled: () => Promise<boolean> | boolean) => {
      for (let i = 0; i < count; i++) {
        clock.advance(1_000);
        await waitFor(settled, { timeout: 30_000, interval: 20, message: `step ${i + 1}` });
      }
    };
    /** Nothing of the outbox is due at the clock's time: every sender made the look it was to make. */
    const caughtUp = async () => {
      const next = await store.nextReadyAt('outbox', partition);
      return next === null || next > clock.now();
    };
    return { clock, store, phone, message, logs, senderOn, partition, head, steps, caughtUp };
  }

  it('keeps the claim of a request that outlasts its lease: no other sender takes the outbox over and sends it again', async () => {
    const { clock, store, message, senderOn, partition, head, steps, caughtUp } = await setUp();
    const a = gatewayOf('a');
    a.holdAnswers();
    senderOn(store, a.gateway);
    await waitFor(() => a.sent.length === 1, { message: 'the request of A in flight' });
    const b = gatewayOf('b');
    senderOn(store, b.gateway);
    closers.push(() => a.answer());
    // Ten seconds, over three leases, with A's request in flight (a slow service, a loaded
    // process). A renews its lease every third of it (a sender that did not would see B take
    // the outbox over after 3 s and send the head again once its grace was over).
    for (let second = 1; second <= 10; second++) {
      clock.advance(1_000);
      await waitFor(
        async () => ((await store.nextReadyAt('outbox', partition)) ?? 0) >= clock.now() + leaseMs,
        {
          timeout: 20_000,
          interval: 20,
          message: `A renewed its lease ${second} s into its request`,
        },
      );
      expect(b.sent).toEqual([]);
    }
    a.answer();
    await waitFor(async () => (await head()) === undefined, { message: 'the send recorded' });
    await steps(5, caughtUp);
    expect({ a: a.sent, b: b.sent }).toEqual({ a: [message.body], b: [] });
  });

  it('sends nothing from a claim that was taken over while it waited for its rate-limit slot', async () => {
    const { clock, store, message, logs, senderOn, head, steps, caughtUp } = await setUp();
    let slot!: () => void;
    const a = gatewayOf('a');
    a.waitForSlot(new Promise<void>((resolve) => (slot = resolve)));
    // A stalls: its renewals do not get through (a blocked process, a connection that hangs).
    const stalled: Store = Object.create(store);
    stalled.renewOutbox = async () => ({ ok: true });
    senderOn(stalled, a.gateway);
    await waitFor(() => a.asked === 1, { message: 'A waits for its slot' });
    const b = gatewayOf('b');
    senderOn(store, b.gateway);
    // Past A's lease, B takes the outbox over: the head is in doubt there.
    closers.push(() => slot());
    clock.advance(leaseMs + 1_000);
    await waitFor(async () => (await head())?.inDoubtSince !== undefined, {
      message: 'B took the outbox over',
    });
    expect(logs.lines.some((line) => line.includes('the first message of this outbox'))).toBe(true);
    // A gets its slot: its last look finds the claim lost, and it sends nothing.
    slot();
    await waitFor(
      () => logs.lines.some((line) => line.includes('not sent here')) || a.sent.length > 0,
      {
        message: 'the last look of A',
      },
    );
    expect(a.sent).toEqual([]);
    expect(logs.lines.some((line) => line.includes('not sent here'))).toBe(true);
    // It is sent once its grace is over (nothing could confirm a send nobody made), once: by B,
    // or by A's sender, which may claim the outbox again as any sender may once B's claim
    // waits out the grace (the test expected B alone, and failed whenever A's claim came first).
    await steps(6, caughtUp);
    await waitFor(async () => (await head()) === undefined, { message: 'the outbox drained' });
    expect([...a.sent, ...b.sent]).toEqual([message.body]);
  });

  it('leaves a send whose record the store refused to the takeover, which finds it by its status', async () => {
    const { store, phone, message, logs, senderOn, head, steps, caughtUp } = await setUp();
    const a = gatewayOf('a');
    // A's store takes everything but the record of the send.
    const refusing: Store = Object.create(store);
    refusing.recordSent = async () => {
      throw new Error('STORE_UNAVAILABLE: Redis did not answer recordSent');
    };
    const senderA = senderOn(refusing, a.gateway);
    await waitFor(() => a.sent.length === 1, { message: 'the request of A' });
    // The service reports the send.
    await store.ingest(
      'n-1',
      [{ ...statusItem('s-1', phone, 'a-1', 'sent'), body: message.body }],
      t0,
    );
    await waitFor(
      () =>
        a.sent.length > 1 || logs.lines.some((line) => line.includes('did not take its record')),
      { timeout: 30_000, message: 'A gave the record up' },
    );
    // A's process goes (its store is broken); B runs on.
    await senderA.stop();
    const b = gatewayOf('b');
    senderOn(store, b.gateway);
    // Past A's lease, B takes the outbox over and finds the send by its status.
    await steps(5, caughtUp);
    await waitFor(async () => (await head()) === undefined, { message: 'the outbox drained' });
    expect({ a: a.sent, b: b.sent }).toEqual({ a: [message.body], b: [] });
    expect((await store.getMessage(phone, 'a-1'))?.outboxId).toBe(message.id);
  });
});
