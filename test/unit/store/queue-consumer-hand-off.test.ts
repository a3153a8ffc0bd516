import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createManualClock } from '../../../src/scheduler/create-manual-clock.ts';
import { createQueueConsumer } from '../../../src/store/create-queue-consumer.ts';
import { createMemoryStore } from '../../../src/store/memory/create-memory-store.ts';
import type { ClaimWithView } from '../../../src/store/store.ts';
import {
  leaseMs,
  outboundMessage,
  phonesInDistinctPartitions,
  queueOutbound,
  t0,
} from '../../integration/store/contract/fixtures.ts';
import { waitFor } from '../../support/wait-for.ts';

/**
 * A consumer with one lane whose handler holds each claim until the test lets it go, and
 * claims made elsewhere in the process (as a worker's commit hands its outbox to the sender).
 */
async function oneLane(backlog?: { places: number; maxWaitMs: number }) {
  const store = createMemoryStore({});
  const clock = createManualClock(t0);
  const phones = phonesInDistinctPartitions(store, 8);
  const claims: ClaimWithView<'outbox'>[] = [];
  for (const [i, phone] of phones.entries()) {
    await queueOutbound(store, phone, [outboundMessage(phone, `m-${i}:0`)]);
    claims.push((await store.claim('outbox', store.partitionOf(phone), leaseMs, t0))!);
  }
  const handled: string[] = [];
  const gates: Array<() => void> = [];
  const consumer = createQueueConsumer({
    store,
    queue: 'outbox',
    clock,
    logger: pino({ level: 'silent' }),
    concurrency: 1,
    leaseMs,
    idleMs: 60_000,
    ...(backlog && { handOffBacklog: backlog }),
    async handle(claim) {
      handled.push(claim.phone);
      await new Promise<void>((resolve) => gates.push(resolve));
      await store.release(claim, clock.now());
    },
  });
  consumer.start();
  /** Lets the claim in hand go, and waits until the lane holds the next one. */
  const next = async () => {
    const before = handled.length;
    gates.shift()!();
    await waitFor(() => handled.length > before, { message: 'the lane took the next claim' });
  };
  /** Stops the consumer, letting go every claim held. */
  const stop = async () => {
    const stopped = consumer.stop();
    for (const gate of gates.splice(0)) gate();
    await stopped;
  };
  return { consumer, clock, claims, handled, next, stop };
}

describe('claims handed over to a queue consumer', () => {
  it('without a backlog, a maker holds no more places than the lanes (then it makes its work ready)', async () => {
    const { consumer, claims, handled, stop } = await oneLane();
    expect(consumer.reserve(5)).toBe(1);
    consumer.offer(claims[0]!, t0);
    await waitFor(() => handled.length === 1, { message: 'the lane took the claim' });
    // The lane is busy with it: its place is free again, and one more claim may wait.
    expect(consumer.reserve(5)).toBe(1);
    consumer.offer(claims[1]!, t0);
    expect(consumer.reserve(5)).toBe(0);
    await stop();
  });

  it('with a backlog, more claims may wait while those taken waited briefly; a long wait closes it until a claim is taken soon again', async () => {
    const { consumer, clock, claims, handled, next, stop } = await oneLane({
      places: 3,
      maxWaitMs: 100,
    });
    // One place of the lane, three of the backlog.
    expect(consumer.reserve(10)).toBe(4);
    for (const claim of claims.slice(0, 4)) consumer.offer(claim, t0);
    await waitFor(() => handled.length === 1, { message: 'the lane took the first claim' });
    expect(consumer.reserve(10)).toBe(1);
    consumer.unreserve(1);

    // The next claim a lane takes had waited 200 ms, past the 100 ms bound: no backlog place
    // now (two claims still wait, more than the lane's one place).
    clock.advance(200);
    await next();
    expect(handled).toHaveLength(2);
    expect(consumer.reserve(10)).toBe(0);

    // The waiting ones are taken; the lane's own place is all a maker finds.
    await next();
    await next();
    expect(handled).toHaveLength(4);
    expect(consumer.reserve(10)).toBe(1);
    consumer.unreserve(1);
    // A claim that waits for no time at all opens the backlog again.
    consumer.offer(claims[4]!, clock.now());
    await next();
    expect(handled).toHaveLength(5);
    expect(consumer.reserve(10)).toBe(4);
    consumer.unreserve(4);

    await stop();
  });
});
