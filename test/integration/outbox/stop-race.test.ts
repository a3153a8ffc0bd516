import { afterEach, describe, expect, it } from 'vitest';
import { createCompliancePolicy } from '../../../src/compliance/create-compliance-policy.ts';
import type { Store } from '../../../src/store/store.ts';
import {
  location,
  type ReplyLoop,
  replyNotification,
  settle,
  startReplyLoop,
} from '../../support/reply-loop.ts';
import { waitFor } from '../../support/wait-for.ts';
import { question, registry } from '../compliance/compliance-bots.ts';

const policy = createCompliancePolicy();
const confirmation = policy.text('opt-out', policy.match('STOP')!.language);

interface SentSms {
  body: string;
  createdAt: string;
}

async function sentTo(loop: ReplyLoop, phone: string): Promise<SentSms[]> {
  const res = await fetch(`${loop.emulator.url}/_emulator/messages?to=${phone}`);
  return (await res.json()) as SentSms[];
}

/** What the store was asked about one phone, numbered in one sequence for the whole test. */
interface PhoneCalls {
  /** When its STOP was ingested. */
  ingested?: number;
  /** When its suppression was first written: the webhook's `markOptedOut`, or the STOP's step. */
  suppressed?: number;
  /** The sender's checks immediately before `POST /sms` that let the question go. */
  questionChecks: number[];
  /**
   * When the server acknowledged its STOP: the webhook's last store call for it (`ingest`,
   * `pendingEvents`, `markOptedOut`) has answered, and the 200 follows with no more I/O (ms, the
   * emulator's clock: one process).
   */
  acknowledgedAt?: number;
}

/**
 * Numbers the store calls of the STOP race as they are made. One Redis connection carries them
 * all, so Redis runs them in this order: a check numbered before a phone's suppression ran
 * before it. The webhook's calls for a STOP time its acknowledgement while `stopping` is on.
 */
function recordCalls(store: Store) {
  let sequence = 0;
  const calls = new Map<string, PhoneCalls>();
  const of = (phone: string) => {
    const entry = calls.get(phone) ?? { questionChecks: [] };
    calls.set(phone, entry);
    return entry;
  };
  const state = { stopping: false };
  const acknowledging = (phone: string) => () => {
    if (state.stopping) of(phone).acknowledgedAt = Date.now();
  };
  const { ingest, markOptedOut, pendingEvents, commitStep, readOutbox } = store;
  store.ingest = (id, items, now, claimFor) => {
    const stops = items.flatMap(({ event }) =>
      event.kind === 'reply' && event.body === 'STOP' ? [event.phone] : [],
    );
    for (const phone of stops) of(phone).ingested ??= ++sequence;
    return ingest.call(store, id, items, now, claimFor).finally(() => {
      for (const phone of stops) acknowledging(phone)();
    });
  };
  store.markOptedOut = (key, now, reason) => {
    of(key.phone).suppressed ??= ++sequence;
    return markOptedOut.call(store, key, now, reason).finally(acknowledging(key.phone));
  };
  store.pendingEvents = (key) => pendingEvents.call(store, key).finally(acknowledging(key.phone));
  store.commitStep = (claim, step, now) => {
    if (step.suppression === 'add') of(claim.phone).suppressed ??= ++sequence;
    return commitStep.call(store, claim, step, now);
  };
  store.readOutbox = async (claim, now, renewLeaseMs) => {
    const at = ++sequence;
    const view = await readOutbox.call(store, claim, now, renewLeaseMs);
    // With a lease to renew: the check once the request has its rate-limit slot.
    if (renewLeaseMs !== undefined && view.message?.body === question) {
      of(claim.phone).questionChecks.push(at);
    }
    return view;
  };
  return { calls: (phone: string) => of(phone), state };
}

describe('an opt-out acknowledged while messages wait for their rate-limit slot', () => {
  let loop: ReplyLoop | undefined;
  afterEach(async () => {
    await loop?.close();
    loop = undefined;
  });

  it('stops all of them: none of the 30 is sent after the STOP was answered 200', {
    timeout: 120_000,
  }, async () => {
    // 2 requests a second, 32 sends in flight: the 30 questions all wait for their slot at once,
    // 15 s to drain, longer than the STOPs take to be answered on a loaded machine.
    loop = await startReplyLoop({ registry, rateLimitPerSecond: 2, sendConcurrency: 32 });
    const recorded = recordCalls(loop.store);
    const phones = Array.from({ length: 30 }, (_, i) => `336111800${String(i).padStart(2, '0')}`);
    for (const phone of phones) await loop.start(phone, 'quiz');
    // The sender is draining: a question went, the others wait for their slots.
    await waitFor(
      async () => {
        const counts = await Promise.all(phones.map(async (p) => (await sentTo(loop!, p)).length));
        return counts.reduce((a, b) => a + b, 0) >= 1;
      },
      { message: 'the first question sent' },
    );
    recorded.state.stopping = true;
    await Promise.all(
      phones.map(async (phone, i) => {
        expect(await loop!.notify(replyNotification(`stop-race-${i}`, phone, 'STOP'))).toBe(200);
      }),
    );
    recorded.state.stopping = false;
    for (const phone of phones) await settle(loop, phone);

    let stoppedBeforeSent = 0;
    for (const phone of phones) {
      const calls = recorded.calls(phone);
      expect(calls.acknowledgedAt, phone).toBeDefined();
      const sent = await sentTo(loop, phone);
      const after = sent.filter((sms) => Date.parse(sms.createdAt) > calls.acknowledgedAt!);
      // The documented window (docs/compliance.md): a question whose check, once it had its
      // slot, ran while the STOP was handled, before its suppression, was on its way. Any other
      // question after the acknowledgement is a defect.
      const onItsWay = calls.questionChecks.some(
        (check) => check > calls.ingested! && check < calls.suppressed!,
      );
      const late = after.filter((sms) => sms.body !== confirmation).length;
      if (late > 0) expect(onItsWay, `${phone}: its question went after its STOP's 200`).toBe(true);
      const bodies = sent.map((sms) => sms.body);
      // Each phone got its question before its STOP, or never: never after its confirmation.
      expect([[question, confirmation], [confirmation]]).toContainEqual(bodies);
      if (bodies.length === 1) stoppedBeforeSent++;
      expect(await loop.store.isSuppressed({ location, phone })).toBe(true);
    }
    // Many questions were still waiting for their slot when the STOPs came: the race was run.
    expect(stoppedBeforeSent).toBeGreaterThanOrEqual(5);
  });
});
