import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setup } from 'xstate';
import type { LocationConfig } from '../../../src/app/config.ts';
import type { BotEvent } from '../../../src/bot/bot-events.ts';
import { type BotRegistry, createBotRegistry } from '../../../src/bot/bot-registry.ts';
import { defineBot, type StartPolicy } from '../../../src/bot/define-bot.ts';
import { reply } from '../../../src/bot/reply.ts';
import { createCampaign } from '../../../src/campaigns/create-campaign.ts';
import { createManualClock } from '../../../src/scheduler/create-manual-clock.ts';
import {
  location,
  type ReplyLoop,
  replyNotification,
  settle,
  startReplyLoop,
} from '../../support/reply-loop.ts';
import { waitFor } from '../../support/wait-for.ts';

const busyText = 'Are you coming tomorrow? Reply YES or NO.';
const thanksText = 'Thanks, noted.';
const surveyText = 'How did we do? Reply 1 to 5.';

/** A conversation already going on with the phone: it waits for an answer. */
const busy = defineBot({
  id: 'busy',
  machine: setup({ types: { events: {} as BotEvent } }).createMachine({
    initial: 'asking',
    states: {
      asking: { entry: reply(busyText), on: { 'sms.reply': 'done' } },
      done: { type: 'final', entry: reply(thanksText) },
    },
  }),
});

/** The campaign's bot, with a start policy toward a conversation already active. */
const survey = (id: string, startPolicy?: StartPolicy) =>
  defineBot({
    id,
    ...(startPolicy && { startPolicy }),
    machine: setup({ types: { events: {} as BotEvent } }).createMachine({
      type: 'final',
      entry: reply(surveyText),
    }),
  });

const loaded = [
  { bot: busy, file: 'busy.ts' },
  { bot: survey('survey'), file: 'survey.ts' },
  { bot: survey('survey-skip', 'skip'), file: 'survey-skip.ts' },
  { bot: survey('survey-replace', 'replace'), file: 'survey-replace.ts' },
  { bot: survey('survey-queue', 'queue'), file: 'survey-queue.ts' },
];
/** What the running deployment has loaded: `retired` is gone since its campaign was made. */
const registry = createBotRegistry(loaded);
/** What the process that made the campaigns had loaded. */
const creatorRegistry: BotRegistry = createBotRegistry([
  ...loaded,
  { bot: survey('retired'), file: 'retired.ts' },
]);

const t0 = Date.parse('2027-03-01T08:00:00Z');
const fireAt = t0 + 60_000;

/** Per campaign: a phone with a conversation going on, and one without. */
const cases = {
  survey: { busy: '33613100001', free: '33613100002' },
  'survey-skip': { busy: '33613100011', free: '33613100012' },
  'survey-replace': { busy: '33613100021', free: '33613100022' },
  'survey-queue': { busy: '33613100031', free: '33613100032' },
  retired: { busy: '33613100041', free: '33613100042' },
} as const;
type Bot = keyof typeof cases;

describe("a campaign's recipient whose phone has a conversation going on, and a campaign whose bot is no longer loaded (real Redis, the emulator, a manual clock)", () => {
  const clock = createManualClock(t0);
  let loop: ReplyLoop;
  beforeAll(async () => {
    loop = await startReplyLoop({ registry, clock, webhook: false });
    // The busy phones are in a conversation with another bot, waiting for an answer.
    for (const { busy: phone } of Object.values(cases)) await loop.start(phone, 'busy');
    for (const { busy: phone } of Object.values(cases)) await loop.waitForBodies(phone, 1);
    // One campaign per bot, each over its two phones, due in a minute.
    for (const [bot, phones] of Object.entries(cases)) {
      const created = await createCampaign(
        {
          store: loop.store,
          registry: creatorRegistry,
          locations: [{ name: location, rateLimitPerSecond: 1_000 } as LocationConfig],
          now: () => clock.now(),
        },
        { name: `c-${bot}`, bot, at: new Date(fireAt).toISOString() },
        Readable.from([`phone\n+${phones.busy}\n+${phones.free}\n`]),
      );
      expect(created.imported).toMatchObject({ added: 2 });
    }
    clock.set(fireAt);
    await loop.app.fireDueCampaigns!();
  }, 60_000);
  afterAll(async () => {
    await loop?.close();
  });

  const countsOf = (bot: Bot) => loop.store.campaignCounts({ location, name: `c-${bot}` });
  /** Waits until the campaign's counts are these (the worker's step moves them). */
  const countsBecome = (bot: Bot, expected: Record<string, number>) =>
    waitFor(
      async () => {
        const counts = await countsOf(bot);
        return JSON.stringify(counts) === JSON.stringify(expected) || counts;
      },
      { timeout: 20_000, interval: 50, message: `c-${bot} counts ${JSON.stringify(expected)}` },
    ).then(async () => expect(await countsOf(bot)).toEqual(expected));

  it.each(['survey', 'survey-skip'] as const)(
    'startPolicy skip (%s): the busy phone is skipped, active_conversation, and its conversation goes on untouched; the other starts',
    async (bot) => {
      const { busy: busyPhone, free } = cases[bot];
      await countsBecome(bot, { started: 1, 'skipped:active_conversation': 1 });
      expect(await loop.waitForBodies(free, 1)).toEqual([surveyText]);
      await settle(loop, busyPhone);
      expect(await loop.bodiesTo(busyPhone)).toEqual([busyText]);
      expect(await loop.store.getConversation({ location, phone: busyPhone })).toMatchObject({
        botId: 'busy',
        status: 'active',
      });
      const meta = (await loop.store.getCampaign({ location, name: `c-${bot}` }))!;
      expect((await loop.store.findRecipient(meta, busyPhone))?.entry.record).toMatchObject({
        state: 'skipped',
        reason: 'active_conversation',
      });
    },
  );

  it('startPolicy replace: the busy conversation ends (REPLACED) and the campaign’s starts in its place', async () => {
    const { busy: busyPhone, free } = cases['survey-replace'];
    await countsBecome('survey-replace', { started: 2 });
    expect(await loop.waitForBodies(busyPhone, 2)).toEqual([busyText, surveyText]);
    expect(await loop.waitForBodies(free, 1)).toEqual([surveyText]);
    const record = await loop.store.getConversation({ location, phone: busyPhone });
    expect(record).toMatchObject({
      botId: 'survey-replace',
      campaign: { name: 'c-survey-replace', row: busyPhone },
    });
    const ended: unknown[] = [];
    for await (const batch of loop.store.listResults('busy')) {
      ended.push(...batch.filter((result) => result.phone === busyPhone));
    }
    expect(ended).toEqual([expect.objectContaining({ endCode: 'REPLACED' })]);
  });

  it('startPolicy queue: the campaign’s conversation waits for the busy one to end, then starts', async () => {
    const { busy: busyPhone, free } = cases['survey-queue'];
    await countsBecome('survey-queue', { started: 2 });
    expect(await loop.waitForBodies(free, 1)).toEqual([surveyText]);
    await settle(loop, busyPhone);
    // Queued: nothing yet, the busy conversation is still the phone's.
    expect(await loop.bodiesTo(busyPhone)).toEqual([busyText]);
    expect(await loop.store.getConversation({ location, phone: busyPhone })).toMatchObject({
      botId: 'busy',
      status: 'active',
      queued: [expect.objectContaining({ botId: 'survey-queue' })],
    });
    // No status webhook here: the reply is posted to replyflow's webhook as the service would.
    expect(await loop.notify(replyNotification('yes-queue', busyPhone, 'YES'))).toBe(200);
    expect(await loop.waitForBodies(busyPhone, 3)).toEqual([busyText, thanksText, surveyText]);
    expect(await loop.store.getConversation({ location, phone: busyPhone })).toMatchObject({
      botId: 'survey-queue',
      campaign: { name: 'c-survey-queue', row: busyPhone },
    });
  });

  it('a campaign whose bot is no longer loaded: failed, bot_not_loaded (a busy phone: skipped, active_conversation); nothing sent', async () => {
    const { busy: busyPhone, free } = cases.retired;
    await countsBecome('retired', {
      'failed:bot_not_loaded': 1,
      'skipped:active_conversation': 1,
    });
    const meta = (await loop.store.getCampaign({ location, name: 'c-retired' }))!;
    expect((await loop.store.findRecipient(meta, free))?.entry.record).toMatchObject({
      state: 'failed',
      reason: 'bot_not_loaded',
    });
    await settle(loop, free);
    await settle(loop, busyPhone);
    expect(await loop.bodiesTo(free)).toEqual([]);
    expect(await loop.store.getConversation({ location, phone: free })).toBeNull();
    expect(await loop.bodiesTo(busyPhone)).toEqual([busyText]);
    // Firing again changes nothing: every recipient is in its final state.
    await loop.app.fireDueCampaigns!();
    expect(await countsOf('retired')).toEqual({
      'failed:bot_not_loaded': 1,
      'skipped:active_conversation': 1,
    });
  });
});
