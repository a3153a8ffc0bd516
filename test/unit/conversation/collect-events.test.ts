import { describe, expect, it } from 'vitest';
import { setup } from 'xstate';
import { createComplianceRules } from '../../../src/app/create-compliance-rules.ts';
import type { BotEvent } from '../../../src/bot/bot-events.ts';
import { createBotRegistry } from '../../../src/bot/bot-registry.ts';
import { defineBot } from '../../../src/bot/define-bot.ts';
import { notify } from '../../../src/bot/notify.ts';
import { record } from '../../../src/bot/record.ts';
import { reply } from '../../../src/bot/reply.ts';
import { runStep, type StepInput } from '../../../src/conversation/run-step.ts';
import type { ConversationRecord, MailboxEvent } from '../../../src/store/records.ts';

const survey = defineBot({
  id: 'survey',
  triggers: { keywords: ['SURVEY'] },
  machine: setup({ types: { events: {} as BotEvent } }).createMachine({
    initial: 'asking',
    states: {
      asking: {
        entry: reply('Score 0-10?'),
        on: {
          'sms.reply': {
            target: 'done',
            actions: [
              record(({ event }) => ({ score: Number(event.type === 'sms.reply' && event.body) })),
              notify('survey.scored', { low: true }),
            ],
          },
        },
      },
      done: { type: 'final', entry: reply('Thanks.') },
    },
  }),
});
const registry = createBotRegistry([{ bot: survey, file: 'survey.ts' }]);
const rules = createComplianceRules([{ name: 'paris', compliance: {} }])('paris');

function replyEvent(body: string, id: string): MailboxEvent {
  return {
    v: 1,
    id,
    kind: 'reply',
    location: 'paris',
    phone: '33612345678',
    receivedAt: 1_000,
    body,
    originSmsId: 'sms-1',
    to: '38200',
  };
}

function step(event: MailboxEvent, record: ConversationRecord | null, more: Partial<StepInput>) {
  return runStep({
    event,
    record,
    message: null,
    registry,
    now: 1_000,
    newRunId: () => 'run-1',
    compliance: rules,
    ...more,
  }).commit;
}

describe('collectEvents', () => {
  it('queues nothing when the location has no subscriptions', () => {
    const started = step(replyEvent('survey', 'n1'), null, {});
    expect(started.events).toBeUndefined();
    expect(step(replyEvent('3', 'n2'), started.record, {}).events).toBeUndefined();
  });

  it('emits started, the bot’s own events, the recorded fields and the end, with stable ids', () => {
    const started = step(replyEvent('survey', 'n1'), null, { events: true });
    expect(started.events?.map((e) => [e.id, e.type])).toEqual([
      ['evt_n1_0', 'conversation.started'],
    ]);
    expect(started.events?.[0]?.data).toMatchObject({
      location: 'paris',
      bot: 'survey',
      botVersion: survey.version,
      runId: 'run-1',
      phone: '33612345678',
      maskedPhone: '336•••••678',
    });
    const answered = step(replyEvent('3', 'n2'), started.record, { events: true });
    expect(answered.events?.map((e) => [e.id, e.type, e.data.payload])).toEqual([
      ['evt_n2_0', 'survey.scored', { low: true }],
      ['evt_n2_1', 'result.recorded', { score: 3 }],
      ['evt_n2_2', 'conversation.ended', { endCode: 'final', result: { score: 3 } }],
    ]);
    // A retried step makes the same events, ids included.
    expect(step(replyEvent('3', 'n2'), started.record, { events: true }).events).toEqual(
      answered.events,
    );
  });

  it('emits optout with the end of the active conversation, and optin', () => {
    const started = step(replyEvent('survey', 'n1'), null, { events: true });
    const stopped = step(replyEvent('STOP', 'n2'), started.record, { events: true });
    expect(stopped.events?.map((e) => [e.type, e.data.payload])).toEqual([
      ['conversation.ended', { endCode: 'opted_out', result: {} }],
      ['optout', { keyword: 'STOP' }],
    ]);
    const back = step(replyEvent('START', 'n3'), stopped.record, { events: true });
    expect(back.events?.map((e) => e.type)).toEqual(['optin']);
  });
});
