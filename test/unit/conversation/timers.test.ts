import { describe, expect, it } from 'vitest';
import { setup } from 'xstate';
import type { BotEvent } from '../../../src/bot/bot-events.ts';
import { createBotRegistry } from '../../../src/bot/bot-registry.ts';
import { defineBot } from '../../../src/bot/define-bot.ts';
import { durations } from '../../../src/bot/parse-duration.ts';
import { reply } from '../../../src/bot/reply.ts';
import { runStep } from '../../../src/conversation/run-step.ts';
import type { ConversationRecord, MailboxEvent, TimerRecord } from '../../../src/store/records.ts';
import reminder, { reminderMachine } from '../../fixtures/bots/reminder-bot.ts';

const hour = 3_600_000;
const registry = createBotRegistry([{ bot: reminder, file: 'reminder.ts' }]);
const key = { location: 'paris', phone: '33612345678' };

function step(event: MailboxEvent, record: ConversationRecord | null, now: number, reg = registry) {
  return runStep({ event, record, message: null, registry: reg, now, newRunId: () => 'run-1' });
}
const start = (botId = 'reminder'): MailboxEvent => ({
  v: 1,
  id: 's:0',
  kind: 'start',
  ...key,
  receivedAt: 0,
  botId,
  input: {},
});
const replyEvent = (id: string, body: string): MailboxEvent => ({
  v: 1,
  id,
  kind: 'reply',
  ...key,
  receivedAt: 0,
  body,
  originSmsId: 'x',
  to: '38200',
});
const fire = (timer: TimerRecord, now: number): MailboxEvent => ({
  v: 1,
  id: `timer:${timer.id}:${timer.dueAt}`,
  kind: 'timer',
  ...key,
  receivedAt: now,
  runId: timer.runId,
  timerId: timer.id,
  dueAt: timer.dueAt,
  event: timer.event,
});

describe('durable timers in the pure step', () => {
  it("turns after: { '24h' } into a timer due 24 h later, plus the expiry, both held by the run", () => {
    const { commit } = step(start(), null, 1_000);
    const [after, expiry] = commit.timers!.set;
    expect(after).toMatchObject({
      id: 'run-1:xstate.after.24h.reminder.waiting',
      dueAt: 1_000 + 24 * hour,
      event: { type: 'xstate.after.24h.reminder.waiting' },
    });
    expect(expiry).toMatchObject({
      id: 'run-1:replyflow.expire',
      dueAt: 1_000 + 7 * 24 * hour,
      event: { type: 'conversation.expire' },
    });
    expect(commit.record?.timers).toEqual({
      [after!.id]: after!.dueAt,
      [expiry!.id]: expiry!.dueAt,
    });
  });

  it('delivers a held timer: the reminder goes out and the next timer is set', () => {
    const first = step(start(), null, 0).commit;
    const { commit, outcome } = step(
      fire(first.timers!.set[0]!, 25 * hour),
      first.record,
      25 * hour,
    );
    expect(outcome.route).toBe('deliver');
    expect(commit.outbound.map((m) => m.body)).toEqual(['Reminder: please reply YES to confirm.']);
    expect(Object.keys(commit.record!.timers!)).toEqual([
      'run-1:replyflow.expire',
      'run-1:xstate.after.2d.reminder.reminded',
    ]);
  });

  it('cancels the timer when a reply leaves the state, and drops the timer if it fires anyway', () => {
    const first = step(start(), null, 0).commit;
    const answered = step(replyEvent('r:0', 'YES'), first.record, hour).commit;
    expect(answered.timers!.cancel).toContain('run-1:xstate.after.24h.reminder.waiting');
    expect(answered.record).toMatchObject({ status: 'done', timers: {} });
    const late = step(fire(first.timers!.set[0]!, 24 * hour), answered.record, 24 * hour);
    expect(late.outcome.route).toBe('drop');
    expect(late.commit.outbound).toEqual([]);
  });

  it('drops a timer event whose due time the run no longer holds (it was set again since)', () => {
    const first = step(start(), null, 0).commit;
    const stale = { ...first.timers!.set[0]!, dueAt: first.timers!.set[0]!.dueAt - 1 };
    expect(step(fire(stale, 30 * hour), first.record, 30 * hour).outcome.route).toBe('drop');
  });

  it('expires an idle conversation: the machine hears conversation.expire, then it ends with its timers', () => {
    const first = step(start(), null, 0).commit;
    const expiry = first.timers!.set.find((t) => t.sendId === 'replyflow.expire')!;
    const { commit } = step(fire(expiry, 7 * 24 * hour), first.record, 7 * 24 * hour);
    expect(commit.outbound.map((m) => m.body)).toEqual(['This conversation has expired.']);
    expect(commit.record).toMatchObject({ status: 'done', endedReason: 'expired', timers: {} });
    expect(commit.timers!.cancel).toEqual(['run-1:xstate.after.24h.reminder.waiting']);
  });

  it('ends the conversation on invalid_phone_number by default, and not when the bot says so', () => {
    const status = (reason: string): MailboxEvent => ({
      v: 1,
      id: `st:${reason}`,
      kind: 'status',
      ...key,
      receivedAt: 0,
      smsId: 'sms-1',
      status: 'errored',
      statusReason: reason,
      runId: 'run-1',
    });
    const first = step(start(), null, 0).commit;
    expect(step(status('invalid_phone_number'), first.record, 1).commit.record).toMatchObject({
      status: 'done',
      endedReason: 'invalid_phone_number',
    });
    const expired = step(status('EXPIRED'), first.record, 1).commit;
    expect(expired.record?.status).toBe('active');
    expect(expired.outbound.map((m) => m.body)).toEqual([
      'Your last message expired before it reached you.',
    ]);

    const patient = defineBot({
      id: 'reminder',
      machine: reminderMachine,
      endOnInvalidNumber: false,
    });
    const reg = createBotRegistry([{ bot: patient, file: 'reminder.ts' }]);
    const mine = step(start(), null, 0, reg).commit;
    expect(step(status('invalid_phone_number'), mine.record, 1, reg).commit.record?.status).toBe(
      'active',
    );
  });

  it('refuses an after key that is neither a duration nor a defined delay, naming the state', () => {
    expect(() =>
      defineBot({
        id: 'bad',
        machine: setup({}).createMachine({
          id: 'b',
          initial: 'a',
          states: { a: { after: { tomorrow: 'b' } }, b: {} },
        }),
      }),
    ).toThrow(/state 'b.a': after 'tomorrow'/);
    expect(() => defineBot({ id: 'bad', expiresAfter: 'soon', machine: reminderMachine })).toThrow(
      /expiresAfter 'soon'/,
    );
  });
});

describe('conversation expiry', () => {
  it('counts replies as activity, not delivery reports', () => {
    const first = step(start(), null, 0).commit;
    const expiry = 'run-1:replyflow.expire';
    const status: MailboxEvent = {
      v: 1,
      id: 'st:1',
      kind: 'status',
      ...key,
      receivedAt: 0,
      smsId: 'sms-1',
      status: 'delivered',
      statusReason: 'DELIVRD',
      runId: 'run-1',
    };
    const afterStatus = step(status, first.record, 5 * hour).commit;
    expect(afterStatus.record?.timers?.[expiry]).toBe(7 * 24 * hour);
    expect(afterStatus.timers?.set.map((t) => t.id)).not.toContain(expiry);
  });

  it('counts a timer that sends or moves the machine, not one that fired and did nothing', () => {
    // Expires after 3 days; a reminder after 24 h, held back by its guard once it has been sent.
    const quiet = defineBot({
      id: 'quiet',
      expiresAfter: '3d',
      machine: setup({
        types: { events: {} as BotEvent, context: {} as { reminded: boolean } },
        delays: durations('24h'),
      }).createMachine({
        id: 'quiet',
        context: { reminded: true },
        initial: 'asking',
        states: {
          asking: {
            entry: reply('Reply YES to confirm.'),
            after: {
              '24h': {
                guard: ({ context }) => !context.reminded,
                actions: reply('Reminder: reply YES.'),
              },
            },
          },
        },
      }),
    });
    const reg = createBotRegistry([{ bot: quiet, file: 'quiet.ts' }]);
    const expiry = 'run-1:replyflow.expire';
    const first = step(start('quiet'), null, 0, reg).commit;
    expect(first.record?.timers?.[expiry]).toBe(3 * 24 * hour);
    const reminder = first.timers!.set.find((t) => t.sendId !== 'replyflow.expire')!;
    const held = step(fire(reminder, 24 * hour), first.record, 24 * hour, reg);
    expect(held.outcome.route).toBe('deliver');
    expect(held.commit.outbound).toEqual([]);
    // Still 3 days from the start, not from the reminder that said nothing.
    expect(held.commit.record?.timers?.[expiry]).toBe(3 * 24 * hour);

    // The reminder bot's 24 h timer moves it to `reminded` and sends: that is activity.
    const reminderFirst = step(start(), null, 0).commit;
    const moved = step(
      fire(reminderFirst.timers!.set[0]!, 24 * hour),
      reminderFirst.record,
      24 * hour,
    ).commit;
    expect(moved.record?.timers?.[expiry]).toBe(24 * hour + 7 * 24 * hour);
  });
});
