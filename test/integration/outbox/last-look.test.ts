import { afterEach, describe, expect, it } from 'vitest';
import { createBotRegistry } from '../../../src/bot/bot-registry.ts';
import echo from '../../fixtures/bots/echo-bot.ts';
import {
  type ReplyLoop,
  replyNotification,
  settle,
  startReplyLoop,
} from '../../support/reply-loop.ts';
import { waitFor } from '../../support/wait-for.ts';

// The sender's last look before POST /sms (DESIGN §2.6) reads the outbox again, renewing the
// claim, unless the view the message came with is younger than `recheckAfterMs` (issue 26):
// the call that answered that view (a commit's hand-over, a claim, the record of the previous
// send) checked the suppression list and the loop guard atomically.

const registry = createBotRegistry([{ bot: echo, file: 'echo.ts' }]);

let loop: ReplyLoop | undefined;
afterEach(async () => {
  await loop?.close();
  loop = undefined;
});

/** Counts the sender's last-look reads (readOutbox with a lease to renew). */
function countLastLooks(target: ReplyLoop) {
  const counted = { reads: 0 };
  const { readOutbox } = target.store;
  target.store.readOutbox = (claim, now, renewLeaseMs) => {
    if (renewLeaseMs !== undefined) counted.reads++;
    return readOutbox.call(target.store, claim, now, renewLeaseMs);
  };
  return counted;
}

async function sentCount(target: ReplyLoop, phones: string[]): Promise<number> {
  let total = 0;
  for (const phone of phones) {
    const res = await fetch(`${target.emulator.url}/_emulator/messages?to=${phone}`);
    total += ((await res.json()) as unknown[]).length;
  }
  return total;
}

/** ECHO from each phone: the greeting and the echo of the trigger, sent as soon as committed. */
async function converse(target: ReplyLoop, phones: string[]): Promise<void> {
  for (const [i, phone] of phones.entries()) {
    expect(await target.notify(replyNotification(`last-look-${i}`, phone, 'ECHO'))).toBe(200);
  }
  for (const phone of phones) await settle(target, phone);
  await waitFor(async () => (await sentCount(target, phones)) === phones.length * 2, {
    message: 'every answer sent',
  });
}

describe("the sender's last look before POST /sms", () => {
  const phones = Array.from({ length: 10 }, (_, i) => `336111900${String(i).padStart(2, '0')}`);

  it('does not read the outbox again for a message whose view is fresh', async () => {
    // A bound no real send reaches here: every view is fresh when its request gets its slot.
    loop = await startReplyLoop({ registry, store: 'redis', recheckAfterMs: 60_000 });
    const counted = countLastLooks(loop);
    await converse(loop, phones);
    expect(counted.reads).toBe(0);
  });

  it('reads it again for every message when the view may be of any age (0)', async () => {
    loop = await startReplyLoop({ registry, store: 'redis', recheckAfterMs: 0 });
    const counted = countLastLooks(loop);
    await converse(loop, phones);
    // Each of the 20 SMS was looked at once more, just before its request.
    expect(counted.reads).toBe(phones.length * 2);
  });
});
