import { describe, expect, it } from 'vitest';
import { setup } from 'xstate';
import { createBotRegistry } from '../../../src/bot/bot-registry.ts';
import { defineBot } from '../../../src/bot/define-bot.ts';
import { reply } from '../../../src/bot/reply.ts';
import { runStep } from '../../../src/conversation/run-step.ts';
import { maxQueuedStarts } from '../../../src/conversation/start-policy.ts';
import type { ConversationRecord, MailboxEvent, StartEvent } from '../../../src/store/records.ts';

/** Asks, ends on any reply, and waits a day otherwise (a timer to cancel). */
const survey = defineBot({
  id: 'survey',
  machine: setup({}).createMachine({
    initial: 'asking',
    states: {
      asking: {
        entry: reply('How was your visit?'),
        after: { 86400000: 'done' },
        on: { 'sms.reply': { target: 'done', actions: reply('Thanks!') } },
      },
      done: { type: 'final' },
    },
  }),
});
const reminder = defineBot({
  id: 'reminder',
  machine: setup({}).createMachine({
    initial: 'waiting',
    states: { waiting: { entry: reply('Your appointment is tomorrow.') } },
  }),
});
const registry = createBotRegistry([
  { bot: survey, file: 'survey.ts' },
  { bot: reminder, file: 'reminder.ts' },
]);

let runs = 0;
const step = (event: MailboxEvent, record: ConversationRecord | null, now = 1_000) =>
  runStep({ event, record, message: null, registry, now, newRunId: () => `run-${++runs}` });

const base = { v: 1 as const, location: 'paris', phone: '33612345678', receivedAt: 1_000 };
const start = (id: string, botId: string, policy?: 'replace' | 'queue'): StartEvent => ({
  ...base,
  id,
  kind: 'start',
  botId,
  input: {},
  ...(policy && { policy }),
});
const replyEvent = (id: string): MailboxEvent => ({
  ...base,
  id,
  kind: 'reply',
  body: 'great',
  originSmsId: 'sms-1',
  to: '38200',
});

/** The survey running: its question sent, its one-day timer pending. */
function surveyRunning(): ConversationRecord {
  const { commit } = step(start('s:0', 'survey'), null);
  expect(commit.record).toMatchObject({ botId: 'survey', status: 'active', seq: 1 });
  // Its one-day timer and its expiry.
  expect(Object.keys(commit.record?.timers ?? {})).toHaveLength(2);
  return commit.record!;
}

describe('start policies toward an active conversation', () => {
  it('drops a start with no policy (skip): the active conversation goes on', () => {
    const { commit, outcome } = step(start('r:0', 'reminder'), surveyRunning());
    expect(outcome).toMatchObject({ route: 'drop' });
    expect(commit.record).toBeNull();
    expect(commit.outbound).toEqual([]);
  });

  it('replace: ends the active one (REPLACED, its timers cancelled) and starts, in one commit', () => {
    const active = surveyRunning();
    const { commit, outcome } = step(start('r:0', 'reminder', 'replace'), active);
    expect(outcome).toMatchObject({ route: 'start', botId: 'reminder' });
    expect(commit.expectedSeq).toBe(1);
    expect(commit.record).toMatchObject({ botId: 'reminder', status: 'active', seq: 2 });
    expect(commit.record?.runId).not.toBe(active.runId);
    expect(commit.timers?.cancel).toEqual(Object.keys(active.timers ?? {}));
    expect(commit.outbound.map((m) => m.body)).toEqual(['Your appointment is tomorrow.']);
  });

  it('replace leaves the active one alone when the new bot is not loaded', () => {
    const { commit, outcome } = step(start('x:0', 'gone', 'replace'), surveyRunning());
    expect(outcome.route).toBe('drop');
    expect(commit.record).toBeNull();
  });

  it('queue: waits in the active record, then starts in the step that ends the active one', () => {
    const active = surveyRunning();
    const queued = step(start('r:0', 'reminder', 'queue'), active);
    expect(queued.outcome).toMatchObject({ route: 'drop', botId: 'survey' });
    expect(queued.commit.outbound).toEqual([]);
    expect(queued.commit.record).toMatchObject({ botId: 'survey', status: 'active', seq: 2 });
    expect(queued.commit.record?.queued?.map((e) => e.id)).toEqual(['r:0']);

    // A reply ends the survey: its thanks, then the reminder's first message, in one commit.
    const ended = step(replyEvent('n:0'), queued.commit.record);
    expect(ended.commit.eventId).toBe('n:0');
    expect(ended.commit.expectedSeq).toBe(2);
    expect(ended.commit.record).toMatchObject({ botId: 'reminder', status: 'active', seq: 3 });
    expect(ended.commit.record?.queued).toBeUndefined();
    expect(ended.commit.outbound.map((m) => m.body)).toEqual([
      'Thanks!',
      'Your appointment is tomorrow.',
    ]);
    expect(new Set(ended.commit.outbound.map((m) => m.id)).size).toBe(2);
    // The survey's timer goes with it.
    expect(ended.commit.timers?.cancel).toEqual(Object.keys(active.timers ?? {}));
  });

  it('queue: starts wait in order, and a full queue drops the newest', () => {
    let record = surveyRunning();
    for (let i = 0; i < maxQueuedStarts + 2; i++) {
      record = step(start(`q${i}:0`, 'reminder', 'queue'), record).commit.record!;
    }
    expect(record.queued?.map((e) => e.id)).toEqual(
      Array.from({ length: maxQueuedStarts }, (_, i) => `q${i}:0`),
    );
    const ended = step(replyEvent('n:0'), record);
    expect(ended.commit.record).toMatchObject({ botId: 'reminder', status: 'active' });
    expect(ended.commit.record?.queued?.map((e) => e.id)).toEqual(
      Array.from({ length: maxQueuedStarts - 1 }, (_, i) => `q${i + 1}:0`),
    );
  });
});
