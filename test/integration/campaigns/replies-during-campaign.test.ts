import { afterEach, describe, expect, it } from 'vitest';
import { setup } from 'xstate';
import type { BotEvent } from '../../../src/bot/bot-events.ts';
import { createBotRegistry } from '../../../src/bot/bot-registry.ts';
import { defineBot } from '../../../src/bot/define-bot.ts';
import { reply } from '../../../src/bot/reply.ts';
import { changeCampaignStatus } from '../../../src/campaigns/change-campaign-status.ts';
import { chunksFor } from '../../../src/store/campaign-id.ts';
import type { CampaignMeta, RecipientRow } from '../../../src/store/campaign-records.ts';
import {
  location,
  type ReplyLoop,
  replyNotification,
  startReplyLoop,
} from '../../support/reply-loop.ts';
import { waitFor } from '../../support/wait-for.ts';

const campaignText = 'Our sale starts today: 20 % off everything.';
const answerText = 'Hi! How can we help?';
const rate = 50;

const sale = defineBot({
  id: 'sale',
  machine: setup({ types: { events: {} as BotEvent } }).createMachine({
    type: 'final',
    entry: reply(campaignText),
  }),
});
const hello = defineBot({
  id: 'hello',
  triggers: { keywords: ['HELLO'] },
  machine: setup({ types: { events: {} as BotEvent } }).createMachine({
    type: 'final',
    entry: reply(answerText),
  }),
});

interface SentSms {
  to: string;
  body: string;
  createdAt: string;
}

const percentile = (values: readonly number[], share: number) =>
  [...values].sort((a, b) => a - b)[Math.max(0, Math.ceil(share * values.length) - 1)]!;

describe('replies while a 20,000-recipient campaign drains at the rate limit', () => {
  let loop: ReplyLoop | undefined;
  afterEach(async () => {
    await loop?.close();
    loop = undefined;
  });

  it('answers every person within a second (p99 over 50 replies), and the campaign keeps going', async () => {
    loop = await startReplyLoop({
      registry: createBotRegistry([
        { bot: sale, file: 'sale.ts' },
        { bot: hello, file: 'hello.ts' },
      ]),
      rateLimitPerSecond: rate,
      sendConcurrency: 32,
      // The test counts SMS: no status webhook, whose notifications would only add load.
      webhook: false,
    });
    const now = Date.now();
    const meta: CampaignMeta = {
      v: 1,
      location,
      name: 'sale',
      bot: 'sale',
      status: 'active',
      schedule: { at: new Date(now).toISOString() },
      // The campaign asks for the whole rate limit: the answers must still go first.
      ratePerSecond: rate,
      timeZone: 'UTC',
      late: { kind: 'sendIfWithin', ms: 3_600_000 },
      chunks: chunksFor(20_000, loop.store.partitions),
      generation: 1,
      createdAt: now,
      updatedAt: now,
    };
    await loop.store.saveCampaign(meta);
    const recipients = Array.from(
      { length: 20_000 },
      (_, i) => `3362${String(i).padStart(7, '0')}`,
    );
    for (let i = 0; i < recipients.length; i += 2_000) {
      const rows: RecipientRow[] = recipients.slice(i, i + 2_000).map((phone, j) => ({
        row: phone,
        record: { state: 'scheduled', due: now, line: i + j + 2, input: {} },
      }));
      await loop.store.upsertRecipients(meta, 1, rows);
    }
    const sent = async () =>
      (await (
        await fetch(`${loop!.emulator.url}/_emulator/messages?location=${location}`)
      ).json()) as SentSms[];
    // Draining: the sends to the campaign run at the limit before the first person writes.
    await waitFor(async () => (await sent()).length >= rate * 3, {
      timeout: 30_000,
      interval: 100,
      message: 'the campaign draining',
    });

    const people = Array.from({ length: 50 }, (_, i) => `3367${String(i).padStart(7, '0')}`);
    const askedAt = new Map<string, number>();
    for (const [i, phone] of people.entries()) {
      await new Promise((resolve) => setTimeout(resolve, 80 + ((i * 37) % 160)));
      // From the moment the service would deliver the reply, not from its acknowledgement.
      askedAt.set(phone, Date.now());
      expect(await loop.notify(replyNotification(`hello-${i}`, phone, 'HELLO'))).toBe(200);
    }
    const answered = await waitFor(
      async () => {
        const answers = (await sent()).filter((sms) => sms.body === answerText);
        return answers.length >= people.length && answers;
      },
      { timeout: 30_000, interval: 100, message: 'every person answered' },
    );
    const waits = answered.map((sms) => Date.parse(sms.createdAt) - askedAt.get(sms.to)!);
    const counts = await loop.store.campaignCounts(meta);
    const campaignSent = (await sent()).filter((sms) => sms.body === campaignText).length;
    console.log(
      `replies during a campaign: p50 ${percentile(waits, 0.5)} ms, p99 ${percentile(waits, 0.99)} ms; ` +
        `${campaignSent} campaign SMS sent, recipients ${JSON.stringify(counts)}`,
    );
    expect(answered).toHaveLength(people.length);
    expect(percentile(waits, 0.99)).toBeLessThan(1_000);
    // Still draining, nowhere near done: the answers went through a campaign at the limit.
    expect(counts.scheduled).toBeGreaterThan(15_000);
    expect(campaignSent).toBeGreaterThan(rate * 5);
    await changeCampaignStatus(loop.store, meta, 'cancel', Date.now());
  }, 120_000);
});
