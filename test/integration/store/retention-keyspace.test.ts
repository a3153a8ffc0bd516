import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { assign, setup } from 'xstate';
import type { BotEvent } from '../../../src/bot/bot-events.ts';
import { createBotRegistry } from '../../../src/bot/bot-registry.ts';
import { defineBot } from '../../../src/bot/define-bot.ts';
import { durations } from '../../../src/bot/parse-duration.ts';
import { record } from '../../../src/bot/record.ts';
import { reply } from '../../../src/bot/reply.ts';
import { createManualClock } from '../../../src/scheduler/create-manual-clock.ts';
import type { CampaignMeta } from '../../../src/store/campaign-records.ts';
import { mastersOf } from '../../support/cluster-keys.ts';
import {
  location,
  type RedisLocation,
  type ReplyLoop,
  replyNotification,
  startReplyLoop,
} from '../../support/reply-loop.ts';
import { waitFor } from '../../support/wait-for.ts';

/**
 * DESIGN §2.7 (issue 14, point 2): nothing is kept forever. Every key replyflow writes has a
 * TTL of at most `REPLYFLOW_RETENTION` (30 days by default), except the records of active
 * conversations and the documented global keys below. A mixed run ends conversations in every
 * way there is, leaves one active on purpose, then every key under the run's prefix is read
 * (on a Cluster, on every master) with its PTTL.
 *
 * The rule is written from the design, not from today's key names: a key layout may change,
 * but a key with no TTL must be one of these, or belong to the active control conversation.
 */

/** `REPLYFLOW_RETENTION`'s default. The test configures nothing: it relies on the default. */
const defaultRetentionMs = 30 * 24 * 3_600_000;
/** Slack on the longest TTL allowed (round-ups, the time the run itself took). */
const ttlSlackMs = 60_000;

/**
 * The documented set of global keys kept with no TTL (DESIGN §2.7), matched against a key with
 * the run's prefix removed. Each is bounded by something other than time.
 */
const GLOBAL_KEYS_WITHOUT_TTL: ReadonlyArray<{ name: string; pattern: RegExp }> = [
  // Per partition: the conversations whose mailbox may be claimed (a member goes with its claim).
  { name: '{p<N>}:ready:inbox', pattern: /^\{p\d+\}:ready:inbox$/ },
  // Per partition: the conversations whose outbox may be claimed (same, for the sender).
  { name: '{p<N>}:ready:outbox', pattern: /^\{p\d+\}:ready:outbox$/ },
  // Per partition: the pending timers by due time (a member goes when its timer fires or is cancelled).
  { name: '{p<N>}:timers', pattern: /^\{p\d+\}:timers$/ },
  // Per partition and bot: the index of the bot's results (`replyflow results <bot>`), trimmed
  // to the results' retention as results are written.
  { name: '{p<N>}:results:<botId>', pattern: /^\{p\d+\}:results:[A-Za-z0-9_-]+$/ },
  // Per partition: the message records made by statuses of unknown sms, by time (each record
  // has its own short TTL; the index is capped at storeLimits.unknownMessagesCap).
  { name: '{p<N>}:unknown-sms', pattern: /^\{p\d+\}:unknown-sms$/ },
  // Per location: its campaigns' definitions, one field each (pruned after the retention once
  // nothing of a campaign waits).
  { name: 'campaigns:<location>', pattern: /^campaigns:[A-Za-z0-9_-]+$/ },
  // Per partition: the campaigns with recipients waiting, at their earliest (a member goes when
  // nothing of its campaign waits there).
  { name: '{p<N>}:camp-due', pattern: /^\{p\d+\}:camp-due$/ },
  // Per partition, location and bot: the activity gauge (conversations active in each state,
  // `stats/counter-names.ts`). A field goes when it is counted down to 0 and the hash with its
  // last field, so it lives only while the bot has active conversations in the partition.
  { name: '{p<N>}:n:act:<location>:<bot>', pattern: /^\{p\d+\}:n:act:[A-Za-z0-9_-]+:.+$/ },
  // Per partition: the outbound events waiting for delivery and their due times (issue 24). An
  // event goes when delivered, or after its retry window (24 h by default) to the dead letters,
  // which expire the retention after the last one; so the queue holds at most a day of events.
  { name: '{p<N>}:evt', pattern: /^\{p\d+\}:evt$/ },
  { name: '{p<N>}:evt-due', pattern: /^\{p\d+\}:evt-due$/ },
  // Per location: the shared send schedule of its rate limit (next slot, paused until).
  { name: '{send:<location>}:…', pattern: /^\{send:[A-Za-z0-9_-]+\}:.+$/ },
];

// The keys this test prints name each phone by its role (`paris:<phone:final>`), not its digits.
const phones = {
  /** Answers twice; the survey reaches its final state and records a result. */
  final: '33612347001',
  /** Texts STOP mid-survey. */
  optOut: '33612347002',
  /** Its bot's `after: 10m` timer fires, then it answers and the conversation ends. */
  timer: '33612347003',
  /** Never answers a bot with `expiresAfter: '1h'`: it expires. */
  expiry: '33612347004',
  /** Its answer makes the bot throw: the conversation is `errored`. */
  errored: '33612347005',
  /** Its first message fails for good (`invalid_phone_number`): the conversation ends. */
  failedSend: '33612347006',
  /** No conversation; texts a word that is no keyword (there is no fallback bot). */
  stray: '33612347007',
  /** Status notifications for sms ids replyflow never sent are about this phone. */
  ghost: '33612347008',
  /** The control: answered once, left active in the middle of the survey. */
  control: '33612347009',
  /** A campaign's recipients: started, sent to, and ended; the campaign has nothing left to do. */
  campaignA: '33612347010',
  campaignB: '33612347011',
} as const;

const survey = defineBot({
  id: 'retention-survey',
  machine: setup({ types: { events: {} as BotEvent } }).createMachine({
    initial: 'score',
    states: {
      score: {
        entry: reply('Rate your visit from 1 to 5.'),
        on: {
          'sms.reply': {
            target: 'comment',
            actions: [
              record(({ event }) => ({ score: event.type === 'sms.reply' ? event.body : '' })),
              reply('Any comment?'),
            ],
          },
        },
      },
      comment: {
        on: {
          'sms.reply': {
            target: 'done',
            actions: [
              record(({ event }) => ({ comment: event.type === 'sms.reply' ? event.body : '' })),
              reply('Thank you!'),
            ],
          },
        },
      },
      done: { type: 'final' },
    },
  }),
});

const nudge = defineBot({
  id: 'retention-nudge',
  machine: setup({ types: { events: {} as BotEvent }, delays: durations('10m') }).createMachine({
    initial: 'waiting',
    states: {
      waiting: {
        entry: reply('Reply OK when you are ready.'),
        after: { '10m': 'nudged' },
        on: { 'sms.reply': 'ready' },
      },
      nudged: {
        entry: reply('Still there? Reply OK.'),
        on: { 'sms.reply': 'ready' },
      },
      ready: { type: 'final', entry: [record({ ready: true }), reply('Great, see you.')] },
    },
  }),
});

const shortLived = defineBot({
  id: 'retention-short',
  expiresAfter: '1h',
  machine: setup({ types: { events: {} as BotEvent } }).createMachine({
    initial: 'asking',
    states: {
      asking: {
        entry: reply('Reply within the hour.'),
        on: {
          'sms.reply': { actions: reply('Noted.') },
          'conversation.expire': { actions: reply('This offer has expired.') },
        },
      },
    },
  }),
});

const fragile = defineBot({
  id: 'retention-fragile',
  machine: setup({ types: { events: {} as BotEvent } }).createMachine({
    initial: 'listening',
    states: {
      listening: {
        entry: reply('Say anything.'),
        on: {
          'sms.reply': {
            actions: assign(() => {
              throw new Error('the bot blew up');
            }),
          },
        },
      },
    },
  }),
});

/** One message, and the conversation ends: a campaign's that leaves nothing active. */
const notice = defineBot({
  id: 'retention-notice',
  machine: setup({ types: { events: {} as BotEvent } }).createMachine({
    initial: 'done',
    states: { done: { type: 'final', entry: reply('Your appointment is tomorrow.') } },
  }),
});

const registry = createBotRegistry([
  { bot: notice, file: 'retention-notice.ts' },
  { bot: survey, file: 'retention-survey.ts' },
  { bot: nudge, file: 'retention-nudge.ts' },
  { bot: shortLived, file: 'retention-short.ts' },
  { bot: fragile, file: 'retention-fragile.ts' },
]);

interface KeyTtl {
  /** The key without the run's prefix. */
  key: string;
  /** PTTL: ms left, or -1 for no TTL. */
  pttl: number;
}

describe.each(['redis', 'cluster'] as const)(
  'retention: the keyspace after a mixed run on %s',
  (store) => {
    let loop: ReplyLoop | undefined;
    afterEach(async () => {
      await loop?.close();
      loop = undefined;
    });

    it('leaves no key without a TTL but the active conversation, the opt-out and the documented global keys', {
      timeout: 60_000,
    }, async () => {
      const clock = createManualClock();
      loop = await startReplyLoop({ store, registry, clock });
      const run = loop;
      const key = (phone: string) => ({ location, phone });

      // One permanent send failure: the next SMS to this phone fails as processed.
      const armed = await fetch(`${run.emulator.url}/_emulator/next-failures`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ phone: phones.failedSend, reason: 'invalid_phone_number' }),
      });
      expect(armed.status).toBe(201);

      await run.start(phones.final, 'retention-survey');
      await run.start(phones.optOut, 'retention-survey');
      await run.start(phones.control, 'retention-survey');
      await run.start(phones.failedSend, 'retention-survey');
      await run.start(phones.timer, 'retention-nudge');
      await run.start(phones.expiry, 'retention-short');
      await run.start(phones.errored, 'retention-fragile');

      // A final state after two replies, with a result recorded.
      await run.waitForBodies(phones.final, 1);
      await run.reply(phones.final, '4');
      await run.waitForBodies(phones.final, 2);
      await run.reply(phones.final, 'Friendly staff');
      expect(await run.waitForBodies(phones.final, 3)).toEqual([
        'Rate your visit from 1 to 5.',
        'Any comment?',
        'Thank you!',
      ]);

      // The control: one reply, then left waiting for its comment.
      await run.waitForBodies(phones.control, 1);
      await run.reply(phones.control, '5');
      await run.waitForBodies(phones.control, 2);

      // An opt-out mid-conversation: the confirmation is its last message.
      await run.waitForBodies(phones.optOut, 1);
      await run.reply(phones.optOut, 'STOP');
      await run.waitForBodies(phones.optOut, 2);

      // The bot throws on the answer.
      await run.waitForBodies(phones.errored, 1);
      await run.reply(phones.errored, 'hello');

      // Statuses for sms ids replyflow never sent, and a reply that matches nothing.
      const ghostIds = ['ghost-sms-1', 'ghost-sms-2'];
      let n = 0;
      for (const smsId of ghostIds) {
        for (const [status, statusReason] of [
          ['sent', ''],
          ['delivered', 'DELIVRD'],
        ] as const) {
          expect(
            await run.notify(
              statusNotification(
                `retention-status-${++n}`,
                smsId,
                phones.ghost,
                status,
                statusReason,
              ),
            ),
          ).toBe(200);
        }
      }
      expect(
        await run.notify(replyNotification('retention-stray-1', phones.stray, 'what is this?')),
      ).toBe(200);

      // The bot's `after: 10m` fires, then the phone answers and the conversation ends.
      await run.waitForBodies(phones.timer, 1);
      clock.advance('15m');
      await run.app.fireDueTimers!();
      await run.waitForBodies(phones.timer, 2);
      await run.reply(phones.timer, 'OK');
      expect(await run.waitForBodies(phones.timer, 3)).toEqual([
        'Reply OK when you are ready.',
        'Still there? Reply OK.',
        'Great, see you.',
      ]);

      // The short-lived conversation expires (the control's 7-day expiry is far off).
      await run.waitForBodies(phones.expiry, 1);
      clock.advance('2h');
      await run.app.fireDueTimers!();
      expect(await run.waitForBodies(phones.expiry, 2)).toEqual([
        'Reply within the hour.',
        'This offer has expired.',
      ]);

      // A campaign of two, started, sent to, ended: nothing of it waits any more.
      const campaign: CampaignMeta = {
        v: 1,
        location,
        name: 'retention-march',
        bot: 'retention-notice',
        status: 'active',
        schedule: { at: new Date(clock.now()).toISOString() },
        ratePerSecond: 100,
        timeZone: 'UTC',
        late: { kind: 'skip' },
        chunks: 2,
        generation: 1,
        createdAt: clock.now(),
        updatedAt: clock.now(),
      };
      await run.store.saveCampaign(campaign);
      await run.store.upsertRecipients(
        campaign,
        1,
        [phones.campaignA, phones.campaignB].map((phone, i) => ({
          row: phone,
          record: { state: 'scheduled' as const, due: clock.now(), line: i + 2, input: {} },
        })),
      );
      await run.app.fireDueCampaigns!();
      await run.waitForBodies(phones.campaignA, 1);
      await run.waitForBodies(phones.campaignB, 1);

      // Every conversation but the control has ended, each the way this run meant.
      const ended = {
        final: { status: 'done', endedReason: 'final' },
        optOut: { status: 'done', endedReason: 'opted_out' },
        timer: { status: 'done', endedReason: 'final' },
        expiry: { status: 'done', endedReason: 'expired' },
        errored: { status: 'errored', endedReason: 'BOT_THREW' },
        failedSend: { status: 'done', endedReason: 'invalid_phone_number' },
        campaignA: { status: 'done', endedReason: 'final' },
        campaignB: { status: 'done', endedReason: 'final' },
      } as const;
      for (const [name, want] of Object.entries(ended)) {
        const phone = phones[name as keyof typeof ended];
        const got = await waitFor(
          async () => {
            const conversation = await run.store.getConversation(key(phone));
            return conversation?.status !== 'active' && conversation;
          },
          { timeout: 10_000, message: `the ${name} conversation has ended` },
        );
        expect(
          { status: got.status, endedReason: got.endedReason },
          `the ${name} conversation`,
        ).toEqual(want);
      }

      // Settled: the emulator has nothing left to do (statuses posted and answered 2xx) and no
      // conversation has an event or a message pending, on three polls in a row.
      let quiet = 0;
      await waitFor(
        async () => {
          const pending = await fetch(`${run.emulator.url}/_emulator/pending-work`);
          const { count } = (await pending.json()) as { count: number };
          const queued = await Promise.all(
            Object.values(phones).map(async (phone) => {
              const [events, outbound] = await Promise.all([
                run.store.pendingEvents(key(phone)),
                run.store.pendingOutbound(key(phone)),
              ]);
              return events.length + outbound.length;
            }),
          );
          quiet = count === 0 && queued.every((q) => q === 0) ? quiet + 1 : 0;
          return quiet >= 3;
        },
        { timeout: 15_000, interval: 100, message: 'the run settled' },
      );

      const control = await run.store.getConversation(key(phones.control));
      expect(control, 'the control conversation').toMatchObject({ status: 'active' });
      expect(await run.store.isSuppressed(key(phones.optOut)), 'the opted-out phone').toBe(true);

      const keys = await keysWithTtl(run.redis!);
      const controlId = `${location}:${phones.control}`;
      const controlRunId = control!.runId;
      console.log(
        `retention (${store}): ${keys.length} keys under ${run.redis!.prefix}, control ${masked(controlId)} run ${controlRunId}\n${describeKeyspace(keys)}`,
      );

      /**
       * Why a key may have no TTL, or undefined when it may not: a key of the active control
       * conversation (named by its conversation id, or by its run id as its timers and its result
       * are), the opted-out phone's suppression and record, or one of the documented global keys.
       */
      const allowedWithoutTtl = (name: string): string | undefined => {
        if (name.includes(controlId) || name.includes(controlRunId)) {
          return 'the active control conversation';
        }
        if (name.match(/^\{p\d+\}:suppressed:(.+)$/)?.[1] === `${location}:${phones.optOut}`) {
          return 'the opt-out, kept until the phone opts in';
        }
        // Its record says so too (no conversation may start for it), kept as long.
        if (name.match(/^\{p\d+\}:conv:(.+)$/)?.[1] === `${location}:${phones.optOut}`) {
          return "the opted-out phone's record, kept until it opts in";
        }
        return GLOBAL_KEYS_WITHOUT_TTL.find(({ pattern }) => pattern.test(name))?.name;
      };

      // The control's record is there and kept (an active conversation has no TTL).
      const controlRecords = keys.filter(({ key }) => key.includes(`conv:${controlId}`));
      expect(
        controlRecords.map(({ key }) => key),
        'the control conversation record',
      ).toHaveLength(1);
      expect(controlRecords[0]!.pttl, `PTTL of ${masked(controlRecords[0]!.key)}`).toBe(-1);

      // The opted-out phone's record is kept as long as its suppression: after the retention,
      // a keyword or an API start must still find it opted out.
      const optOutRecord = keys.find(({ key }) =>
        key.endsWith(`conv:${location}:${phones.optOut}`),
      );
      expect(optOutRecord?.pttl, "PTTL of the opted-out phone's record").toBe(-1);

      // The ended survey's transcript lives in its value (no key of its own), so it goes with
      // it after the retention.
      const transcript = await run.store.readTranscript(key(phones.final));
      expect(
        transcript?.entries.map(({ direction, body }) => `${direction} ${body}`),
        'the ended conversation transcript',
      ).toEqual([
        'out Rate your visit from 1 to 5.',
        'in 4',
        'out Any comment?',
        'in Friendly staff',
        'out Thank you!',
      ]);
      const finalRecord = keys.find(({ key }) => key.endsWith(`conv:${location}:${phones.final}`));
      expect(finalRecord?.pttl, "PTTL of the ended conversation's value").toBeGreaterThan(0);

      const leaks = keys.filter(
        ({ key, pttl }) => pttl === -1 && allowedWithoutTtl(key) === undefined,
      );
      // A TTL counted from replyflow's (manual) clock may run ahead of the real one by what the
      // test advanced it.
      const longest = defaultRetentionMs + Math.max(0, clock.now() - Date.now()) + ttlSlackMs;
      const overlong = keys.filter(({ pttl }) => pttl > longest);

      const problems = [
        leaks.length > 0 &&
          `${leaks.length} keys have no TTL and are neither the active conversation's, the opt-out's nor a documented global key:\n${groupByType(leaks)}`,
        overlong.length > 0 &&
          `${overlong.length} keys have a TTL longer than the retention (${defaultRetentionMs} ms):\n${groupByType(overlong)}`,
      ].filter(Boolean);
      expect(problems.join('\n\n'), `keys kept forever or too long on ${store}`).toBe('');
    });
  },
);

/** Every key under the run's prefix with its PTTL (on a Cluster, from every master). */
async function keysWithTtl(where: RedisLocation): Promise<KeyTtl[]> {
  const nodes = where.clusterNodes ? await mastersOf(where.clusterNodes) : [where.url!];
  const found: KeyTtl[] = [];
  for (const node of nodes) {
    const redis = where.clusterNodes
      ? new Redis(Number(node.split(':')[1]), node.split(':')[0]!, { maxRetriesPerRequest: 1 })
      : new Redis(node, { maxRetriesPerRequest: 1 });
    try {
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', `${where.prefix}*`, 'COUNT', 1000);
        cursor = next;
        if (keys.length === 0) continue;
        const pipeline = redis.pipeline();
        for (const key of keys) pipeline.pttl(key);
        const ttls = (await pipeline.exec()) ?? [];
        keys.forEach((key, i) => {
          const [error, pttl] = ttls[i] ?? [];
          if (error) throw error;
          // -2: the key expired between SCAN and PTTL.
          if (pttl !== -2)
            found.push({ key: key.slice(where.prefix.length), pttl: pttl as number });
        });
      } while (cursor !== '0');
    } finally {
      redis.disconnect();
    }
  }
  return found.sort((a, b) => a.key.localeCompare(b.key));
}

/**
 * The type of a key: its hash tag generalised, then its leading name segments up to the first
 * variable one (a location, a phone, an id). `{p3}:lock:inbox:paris:336…` → `{p<N>}:lock:inbox:…`.
 */
function keyType(key: string): string {
  const tagged = key.match(/^(\{p\d+\}|\{send:[^}]+\})?:?(.*)$/)!;
  const tag = tagged[1] ? (tagged[1].startsWith('{p') ? '{p<N>}:' : '{send:<location>}:') : '';
  const segments = tagged[2]!.split(':');
  const fixed: string[] = [];
  for (const segment of segments) {
    if (segment === location || !/^[a-z][a-z-]*$/.test(segment)) break;
    fixed.push(segment);
  }
  const rest = fixed.length < segments.length ? ':…' : '';
  return `${tag}${fixed.join(':')}${rest}`;
}

/** A key as printed: each phone of the run replaced by its role (`<phone:control>`). */
function masked(key: string): string {
  let shown = key;
  for (const [role, phone] of Object.entries(phones))
    shown = shown.replaceAll(phone, `<phone:${role}>`);
  return shown;
}

function describeTtl(pttl: number): string {
  if (pttl === -1) return 'no TTL';
  const days = pttl / 86_400_000;
  return days >= 1 ? `${days.toFixed(1)} d` : `${Math.round(pttl / 1000)} s`;
}

/** Offending keys printed per type (the run makes fewer: all of them show). */
const shownPerType = 20;

/** Keys grouped by type, each group with its count and its keys (up to 20) with their TTL. */
function groupByType(keys: readonly KeyTtl[]): string {
  const groups = new Map<string, KeyTtl[]>();
  for (const entry of keys) {
    const type = keyType(entry.key);
    groups.set(type, [...(groups.get(type) ?? []), entry]);
  }
  return [...groups]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([type, entries]) => {
      const examples = entries
        .slice(0, shownPerType)
        .map(({ key, pttl }) => `      ${masked(key)} (${describeTtl(pttl)})`)
        .join('\n');
      const more =
        entries.length > shownPerType ? `\n      … and ${entries.length - shownPerType} more` : '';
      return `  ${type}: ${entries.length}\n${examples}${more}`;
    })
    .join('\n');
}

/** The whole keyspace by type, TTL or not: for a reader checking the test's own setup. */
function describeKeyspace(keys: readonly KeyTtl[]): string {
  const groups = new Map<string, { withTtl: number; without: number }>();
  for (const { key, pttl } of keys) {
    const type = keyType(key);
    const group = groups.get(type) ?? { withTtl: 0, without: 0 };
    if (pttl === -1) group.without += 1;
    else group.withTtl += 1;
    groups.set(type, group);
  }
  return [...groups]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([type, { withTtl, without }]) => `  ${type}: ${without} without TTL, ${withTtl} with`)
    .join('\n');
}

/** An `sms.status` notification as the service sends it (spec 2.1, 2.7). */
function statusNotification(
  id: string,
  smsId: string,
  phone: string,
  status: string,
  statusReason: string,
) {
  return {
    id,
    webhookId: 'wh-retention',
    type: 'sms.status',
    data: [
      {
        id: smsId,
        from: '',
        to: phone,
        body: 'A message replyflow never sent',
        shortenUrls: false,
        isTransactional: false,
        status,
        statusReason,
        price: 0.05,
        parts: 1,
        createdAt: '2026-11-24T09:00:00.000Z',
        updatedAt: '2026-11-24T09:00:01.000Z',
      },
    ],
  };
}
