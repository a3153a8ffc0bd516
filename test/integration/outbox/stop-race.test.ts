import { afterEach, describe, expect, it } from 'vitest';
import { createCompliancePolicy } from '../../../src/compliance/create-compliance-policy.ts';
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

describe('an opt-out acknowledged while messages wait for their rate-limit slot', () => {
  let loop: ReplyLoop | undefined;
  afterEach(async () => {
    await loop?.close();
    loop = undefined;
  });

  it('stops all of them: none of the 30 is sent after the STOP was answered 200', async () => {
    // 4 requests a second, 32 sends in flight: the 30 questions all wait for their slot at once.
    loop = await startReplyLoop({ registry, rateLimitPerSecond: 4, sendConcurrency: 32 });
    const phones = Array.from({ length: 30 }, (_, i) => `336111800${String(i).padStart(2, '0')}`);
    for (const phone of phones) await loop.start(phone, 'quiz');
    // The sender is draining: a few questions went, the others wait for their slots.
    await waitFor(
      async () => {
        const counts = await Promise.all(phones.map(async (p) => (await sentTo(loop!, p)).length));
        return counts.reduce((a, b) => a + b, 0) >= 2;
      },
      { message: 'the first questions sent' },
    );
    const acknowledged = new Map<string, number>();
    await Promise.all(
      phones.map(async (phone, i) => {
        expect(await loop!.notify(replyNotification(`stop-race-${i}`, phone, 'STOP'))).toBe(200);
        acknowledged.set(phone, Date.now());
      }),
    );
    for (const phone of phones) await settle(loop, phone);

    let stoppedBeforeSent = 0;
    for (const phone of phones) {
      const sent = await sentTo(loop, phone);
      const after = sent.filter((sms) => Date.parse(sms.createdAt) > acknowledged.get(phone)!);
      expect(after.map((sms) => sms.body)).toEqual([confirmation]);
      const bodies = sent.map((sms) => sms.body);
      // Each phone got its question before its STOP, or never: never after.
      expect([[question, confirmation], [confirmation]]).toContainEqual(bodies);
      if (bodies.length === 1) stoppedBeforeSent++;
      expect(await loop.store.isSuppressed({ location, phone })).toBe(true);
    }
    // Most questions were still waiting for their slot when the STOPs came (4 a second).
    expect(stoppedBeforeSent).toBeGreaterThan(15);
  });
});
