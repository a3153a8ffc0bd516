import { describe, expect, it } from 'vitest';
import { setup } from 'xstate';
import { createComplianceRules } from '../../../src/app/create-compliance-rules.ts';
import type { BotEvent } from '../../../src/bot/bot-events.ts';
import { createBotRegistry } from '../../../src/bot/bot-registry.ts';
import { defineBot } from '../../../src/bot/define-bot.ts';
import { reply } from '../../../src/bot/reply.ts';
import { runStep } from '../../../src/conversation/run-step.ts';
import type { ConversationRecord, MailboxEvent } from '../../../src/store/records.ts';

const waiter = defineBot({
  id: 'waiter',
  triggers: { keywords: ['TABLE'] },
  claims: ['CANCEL'],
  machine: setup({ types: { events: {} as BotEvent } }).createMachine({
    initial: 'waiting',
    states: {
      waiting: {
        entry: reply('How many people?'),
        after: { 3600000: { actions: reply('Still there?') } },
        on: {
          'sms.reply': {
            actions: reply(({ event }) => `heard ${event.type === 'sms.reply' ? event.body : ''}`),
          },
        },
      },
    },
  }),
});
const registry = createBotRegistry([{ bot: waiter, file: 'waiter.ts' }]);
const rules = createComplianceRules([
  {
    name: 'paris',
    compliance: {
      group: 7,
      loopGuard: { max: 5, window: '1m' },
      quietHours: { timeZone: 'Europe/Paris', window: '21:00-08:00' },
    },
  },
])('paris');
const noon = Date.parse('2026-12-01T11:00:00Z');
const night = Date.parse('2026-12-01T22:30:00Z');

const reply1 = (body: string, at = noon): MailboxEvent => ({
  v: 1,
  id: `n-${body}:0`,
  kind: 'reply',
  location: 'paris',
  phone: '33612345678',
  receivedAt: at,
  body,
  originSmsId: 'sms-1',
  to: '38200',
});
const step = (
  event: MailboxEvent,
  record: ConversationRecord | null,
  now = event.receivedAt,
  suppressed = false,
) =>
  runStep({
    event,
    record,
    message: null,
    registry,
    now,
    newRunId: () => 'run-1',
    compliance: rules,
    suppressed,
  });

describe('the compliance step in runStep', () => {
  const started = step(reply1('TABLE'), null).commit.record!;

  it('ends the active run on STOP, cancels its timers, suppresses, confirms once and unsubscribes the contact', () => {
    expect(Object.keys(started.timers ?? {})).not.toEqual([]);
    const { commit, outcome } = step(reply1('Stop!'), started);
    expect(outcome).toMatchObject({ route: 'compliance', reason: 'opt-out' });
    expect(commit.suppression).toBe('add');
    expect(commit.suppressionReason).toBe('STOP');
    expect(commit.record).toMatchObject({
      status: 'done',
      endedReason: 'opted_out',
      suppressed: true,
      seq: started.seq + 1,
    });
    expect(commit.timers?.cancel.sort()).toEqual(Object.keys(started.timers ?? {}).sort());
    expect(commit.outbound.map((m) => [m.compliance, m.contact])).toEqual([
      ['opt-out', undefined],
      [
        undefined,
        { group: 7, fields: { contactPhoneNumber: '33612345678', contactSubscribed: false } },
      ],
    ]);
    expect(commit.results?.[0]).toMatchObject({ runId: started.runId, endCode: 'opted_out' });
  });

  it('starts nothing for a phone on the suppression list: a start commits only unless suppressed, and the step again knowing it drops', () => {
    const stopped = step(reply1('STOP'), started).commit.record!;
    // The record's flag is not what decides: the store's list is (an import has no record).
    const asked = step(reply1('TABLE'), stopped);
    expect(asked.outcome).toMatchObject({ route: 'start', botId: 'waiter' });
    expect(asked.commit.unlessSuppressed).toBe(true);
    const known = step(reply1('TABLE'), stopped, noon, true);
    expect(known.outcome).toMatchObject({ route: 'drop', reason: 'the phone opted out' });
    expect(known.commit).toMatchObject({ record: null, outbound: [] });
    expect(known.commit.unlessSuppressed).toBeUndefined();
    expect(step(reply1('TABLE'), null, noon, true).outcome).toMatchObject({ route: 'drop' });
    const back = step(reply1('START'), stopped).commit;
    expect(back).toMatchObject({ suppression: 'remove', record: { suppressed: false } });
    // A reply to an active run is no start: it asks nothing.
    expect(step(reply1('4'), asked.commit.record).commit.unlessSuppressed).toBeUndefined();
  });

  it('answers HELP and leaves the run as it was; a claimed word reaches the bot', () => {
    const help = step(reply1('help'), started).commit;
    expect(help.record).toBeNull();
    expect(help.timers).toBeUndefined();
    expect(help.outbound.map((m) => m.compliance)).toEqual(['help']);
    expect(step(reply1('cancel'), started).commit.outbound.map((m) => m.body)).toEqual([
      'heard cancel',
    ]);
  });

  it('stamps the loop guard on every message, and holds only what the bot starts on its own at night', () => {
    const direct = step(reply1('TABLE', night), null).commit.outbound;
    expect(direct).toMatchObject([{ loopGuard: { max: 5, windowMs: 60_000 } }]);
    expect(direct[0]?.holdUntil).toBeUndefined();
    const apiStart: MailboxEvent = {
      v: 1,
      id: 'start:1:0',
      kind: 'start',
      location: 'paris',
      phone: '33612345678',
      receivedAt: night,
      botId: 'waiter',
      input: {},
    };
    expect(step(apiStart, null).commit.outbound).toMatchObject([
      { holdUntil: Date.parse('2026-12-02T07:00:00Z') },
    ]);
  });
});
