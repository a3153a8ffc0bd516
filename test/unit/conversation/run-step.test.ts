import { describe, expect, it } from 'vitest';
import { setup } from 'xstate';
import { createBotRegistry } from '../../../src/bot/bot-registry.ts';
import { defineBot } from '../../../src/bot/define-bot.ts';
import { reply } from '../../../src/bot/reply.ts';
import { runStep, type StepInput } from '../../../src/conversation/run-step.ts';
import type { ConversationRecord, MailboxEvent } from '../../../src/store/records.ts';
import echo, { echoMachine } from '../../fixtures/bots/echo-bot.ts';

const fallback = defineBot({
  id: 'help',
  fallback: true,
  machine: setup({}).createMachine({ entry: reply('Text ECHO to start.'), type: 'final' }),
});
const registry = createBotRegistry([
  { bot: echo, file: 'echo.ts' },
  { bot: fallback, file: 'help.ts' },
]);

let runs = 0;
function step(
  event: MailboxEvent,
  record: ConversationRecord | null,
  overrides: Partial<StepInput> = {},
) {
  return runStep({
    event,
    record,
    message: null,
    registry,
    now: 1_000,
    newRunId: () => `run-${++runs}`,
    ...overrides,
  });
}

function replyEvent(body: string, id = `n1:${body}`): MailboxEvent {
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

describe('runStep', () => {
  it('starts the bot whose keyword opens the message, case and accents folded', () => {
    const { commit, outcome } = step(replyEvent('Écho, please'), null);
    expect(outcome).toMatchObject({ route: 'start', reason: 'keyword', botId: 'echo' });
    expect(commit.record).toMatchObject({
      botId: 'echo',
      status: 'active',
      seq: 1,
      botVersion: echo.version,
    });
    expect(commit.outbound.map((m) => m.body)).toEqual([
      'Echo bot here. Say anything.',
      '#1: Écho, please',
    ]);
    expect(commit.outbound.map((m) => m.id)).toEqual(['n1:Écho, please:0', 'n1:Écho, please:1']);
  });

  it('continues the active conversation from its stored snapshot', () => {
    const first = step(replyEvent('echo'), null).commit.record!;
    const { commit, outcome } = step(replyEvent('hello', 'n2:0'), first);
    expect(outcome.route).toBe('deliver');
    expect(commit.expectedSeq).toBe(1);
    expect(commit.record).toMatchObject({ runId: first.runId, seq: 2 });
    expect(commit.outbound.map((m) => m.body)).toEqual(['#2: hello']);
  });

  it('falls back when no keyword matches, and drops when there is no fallback either', () => {
    expect(step(replyEvent('what?'), null).outcome).toMatchObject({
      route: 'start',
      reason: 'fallback',
      botId: 'help',
    });
    const bare = createBotRegistry([{ bot: echo, file: 'echo.ts' }]);
    const { commit, outcome } = step(replyEvent('what?'), null, { registry: bare });
    expect(outcome.route).toBe('drop');
    expect(commit.record).toBeNull();
    expect(commit.outbound).toEqual([]);
  });

  it('ends the conversation on endConversation(), and the next reply is routed afresh', () => {
    const first = step(replyEvent('echo'), null).commit.record!;
    const bye = step(replyEvent('bye', 'n3:0'), first).commit;
    expect(bye.record).toMatchObject({ status: 'done', endedReason: 'said bye' });
    expect(bye.outbound.map((m) => m.body)).toEqual(['Bye!']);
    expect(step(replyEvent('hi', 'n4:0'), bye.record).outcome).toMatchObject({
      route: 'start',
      reason: 'fallback',
    });
  });

  it('marks the conversation errored when the bot throws, without throwing itself', () => {
    const first = step(replyEvent('echo'), null).commit.record!;
    const { commit, outcome } = step(replyEvent('boom', 'n5:0'), first);
    expect(outcome.error).toBeInstanceOf(Error);
    expect(commit.record).toMatchObject({ status: 'errored', endedReason: 'BOT_THREW', seq: 2 });
    expect(commit.outbound).toEqual([]);
  });

  it('ends a run stored by another machine version with version_changed and routes afresh', () => {
    const first = step(replyEvent('echo'), null).commit.record!;
    const old = { ...first, botVersion: 'older' };
    const { commit, outcome } = step(replyEvent('hello', 'n6:0'), old);
    expect(outcome.ended).toMatchObject({ code: 'version_changed', botId: 'echo' });
    expect(outcome).toMatchObject({ route: 'start', reason: 'fallback' });
    expect(commit.record?.runId).not.toBe(first.runId);
  });

  it('resumes another version through migrate()', () => {
    const migrating = defineBot({
      id: 'echo',
      triggers: { keywords: ['echo'] },
      machine: echoMachine,
      migrate: ({ snapshot }) => snapshot,
    });
    const reg = createBotRegistry([{ bot: migrating, file: 'echo.ts' }]);
    const first = step(replyEvent('echo'), null, { registry: reg }).commit.record!;
    const { outcome, commit } = step(
      replyEvent('again', 'n7:0'),
      { ...first, botVersion: 'older' },
      { registry: reg },
    );
    expect(outcome).toMatchObject({ route: 'deliver' });
    expect(commit.record).toMatchObject({ runId: first.runId, botVersion: migrating.version });
  });

  it('never crashes on a snapshot whose state no longer exists', () => {
    const first = step(replyEvent('echo'), null).commit.record!;
    const broken = {
      ...first,
      snapshot: {
        status: 'active',
        value: 'vanished',
        context: { seen: [] },
        children: {},
        historyValue: {},
      },
    };
    const { outcome } = step(replyEvent('hello', 'n8:0'), broken);
    expect(outcome.ended?.code).toBe('version_changed');
    expect(outcome.ended?.detail).toMatch(/vanished/);
  });

  it('delivers a status only to the run that sent the message', () => {
    const first = step(replyEvent('echo'), null).commit.record!;
    const status: MailboxEvent = {
      v: 1,
      id: 's1:0',
      kind: 'status',
      location: 'paris',
      phone: '33612345678',
      receivedAt: 1,
      smsId: 'sms-9',
      status: 'errored',
      statusReason: 'EXPIRED',
    };
    const mine = {
      v: 1 as const,
      smsId: 'sms-9',
      location: 'paris',
      phone: '33612345678',
      status: 'errored' as const,
      statusReason: 'EXPIRED',
      runId: first.runId,
    };
    const delivered = step(status, first, { message: mine });
    expect(delivered.outcome.route).toBe('deliver');
    expect(
      (delivered.commit.record!.snapshot as { context: { statuses: string[] } }).context.statuses,
    ).toContain('sms-9:errored:EXPIRED');
    expect(step(status, first, { message: { ...mine, runId: 'someone-else' } }).outcome.route).toBe(
      'drop',
    );
  });
});
