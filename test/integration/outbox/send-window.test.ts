import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createClientGateway } from '../../../src/app/create-client-gateway.ts';
import { createSender } from '../../../src/outbox/create-sender.ts';
import type { SmsGateway } from '../../../src/outbox/sms-gateway.ts';
import { systemClock } from '../../../src/scheduler/clock.ts';
import { createManualClock } from '../../../src/scheduler/create-manual-clock.ts';
import { createMemoryStore } from '../../../src/store/memory/create-memory-store.ts';
import type { Store } from '../../../src/store/store.ts';
import { waitFor } from '../../support/wait-for.ts';
import { type ProviderEmulator, startProviderEmulator } from '../provider/provider-emulator.ts';
import { outboundMessage, queueOutbound } from '../store/contract/fixtures.ts';

/** Wraps the store's calls and the real gateway to see what overlaps what. */
function instrument(store: Store, gateway: SmsGateway) {
  const seen = { inFlight: 0, mostInFlight: 0, callsDuringSends: 0, sends: 0 };
  const watched: Store = Object.create(store);
  for (const name of ['claim', 'claimMany', 'recordSent', 'release'] as const) {
    const original = store[name].bind(store) as (...args: unknown[]) => Promise<unknown>;
    (watched as unknown as Record<string, unknown>)[name] = (...args: unknown[]) => {
      if (seen.inFlight > 0) seen.callsDuringSends++;
      return original(...args);
    };
  }
  const watchedGateway: SmsGateway = {
    async send(location, message) {
      seen.inFlight++;
      seen.sends++;
      seen.mostInFlight = Math.max(seen.mostInFlight, seen.inFlight);
      try {
        return await gateway.send(location, message);
      } finally {
        seen.inFlight--;
      }
    },
  };
  return { seen, store: watched, gateway: watchedGateway };
}

describe('the send window', () => {
  let service: ProviderEmulator | undefined;
  afterEach(async () => {
    await service?.close();
    service = undefined;
  });

  it.each([
    [1, 8],
    [3, 8],
  ])(
    'keeps at most %i POST /sms in flight with %i lanes, whose claims overlap the sends',
    async (sendsInFlight, lanes) => {
      service = await startProviderEmulator({ rateLimitPerSecond: Number.POSITIVE_INFINITY });
      const memory = createMemoryStore({});
      const phones = Array.from({ length: 60 }, (_, n) => `336${String(10_000_000 + n)}`);
      for (const phone of phones) {
        await queueOutbound(
          memory,
          phone,
          [
            outboundMessage(phone, `e-${phone}:0`),
            outboundMessage(phone, `e-${phone}:1`, 'Second'),
          ],
          Date.now(),
        );
      }
      const client = service.client({ limits: { perSecond: 1_000_000 } });
      const { seen, store, gateway } = instrument(
        memory,
        createClientGateway(new Map([['paris', client]])),
      );
      const sender = createSender({
        store,
        gateway,
        clock: systemClock,
        logger: pino({ level: 'silent' }),
        sendsInFlight,
        lanes,
      });
      sender.start();
      try {
        await waitFor(async () => (await service!.requests('POST /v1/sms')).length === 120, {
          timeout: 20_000,
        });
      } finally {
        await sender.stop();
      }
      expect(seen.sends).toBe(120);
      expect(seen.mostInFlight).toBeLessThanOrEqual(sendsInFlight);
      if (sendsInFlight > 1) expect(seen.mostInFlight).toBeGreaterThan(1);
      // Other lanes claimed and released while a send was in flight: those round trips overlap it.
      expect(seen.callsDuringSends).toBeGreaterThan(0);
      // Each phone got its two messages, in the order the bot queued them, once each.
      const sent = await service.control<{ to: string; body: string }[]>('GET', '/messages');
      for (const phone of phones.slice(0, 5)) {
        const bodies = sent.filter((m) => m.to === phone).map((m) => m.body);
        expect(bodies).toEqual([outboundMessage(phone, 'x').body, 'Second']);
      }
      for (const phone of phones)
        expect(await memory.pendingOutbound({ location: 'paris', phone })).toEqual([]);
    },
  );

  it('gives back unsent a claim that waited for the window past half its lease', async () => {
    service = await startProviderEmulator({ rateLimitPerSecond: Number.POSITIVE_INFINITY });
    const clock = createManualClock();
    const memory = createMemoryStore({});
    const [first = '', second = ''] = ['33610000100', '33610000101'];
    for (const phone of [first, second]) {
      await queueOutbound(memory, phone, [outboundMessage(phone, `e-${phone}:0`)], clock.now());
    }
    const real = createClientGateway(
      new Map([['paris', service.client({ limits: { perSecond: 1_000_000 } })]]),
    );
    // The first send hangs until the test lets it go: the other lane waits for the window.
    let letGo = () => {};
    const held = new Promise<void>((resolve) => {
      letGo = resolve;
    });
    let hanging = true;
    const { seen, store, gateway } = instrument(memory, {
      async send(location, message) {
        if (hanging) {
          hanging = false;
          await held;
        }
        return real.send(location, message);
      },
    });
    let claims = 0;
    const claimMany = store.claimMany.bind(store);
    store.claimMany = async (...args) => {
      const claimed = await claimMany(...args);
      claims += claimed.length;
      return claimed;
    };
    const sender = createSender({
      store,
      gateway,
      clock,
      logger: pino({ level: 'silent' }),
      sendsInFlight: 1,
      lanes: 2,
      leaseMs: 1_000,
      idleMs: 5,
    });
    sender.start();
    try {
      await waitFor(() => claims === 2 && seen.inFlight === 1);
      clock.advance(600);
      letGo();
      await waitFor(async () => (await service!.requests('POST /v1/sms')).length === 2, {
        timeout: 10_000,
      });
    } finally {
      await sender.stop();
    }
    // The waiting lane's claim went back unsent and was claimed afresh: 3 claims, 2 sends.
    expect(claims).toBe(3);
    expect(seen.sends).toBe(2);
    for (const phone of [first, second]) {
      expect(await memory.pendingOutbound({ location: 'paris', phone })).toEqual([]);
    }
  });
});
