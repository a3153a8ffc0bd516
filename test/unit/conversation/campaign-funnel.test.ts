import { describe, expect, it } from 'vitest';
import { createBotRegistry } from '../../../src/bot/bot-registry.ts';
import { runStep } from '../../../src/conversation/run-step.ts';
import type {
  ConversationRecord,
  MailboxEvent,
  MessageRecord,
} from '../../../src/store/records.ts';
import echo from '../../fixtures/bots/echo-bot.ts';

const registry = createBotRegistry([{ bot: echo, file: 'echo.ts' }]);
const phone = '33612345678';
const base = { v: 1 as const, location: 'paris', phone, receivedAt: 1_000 };
const start: MailboxEvent = {
  ...base,
  id: 'campaign:spring:1',
  kind: 'start',
  botId: 'echo',
  input: {},
  campaign: { name: 'spring', row: phone, chunk: 0, revision: 0 },
};
/** An `sms.status` as the webhook stores it: the run is known from the message it is about. */
const status = (id: string, value: 'sent' | 'delivered'): MailboxEvent => ({
  ...base,
  id,
  kind: 'status',
  smsId: 'sms-1',
  status: value,
  statusReason: value === 'delivered' ? 'DELIVRD' : '',
});

/** The funnel's counters of a commit (the bots' activity counters move in it too). */
const funnel = (commit: { counters?: { name: string; field: string }[] }) =>
  commit.counters?.filter((c) => c.name.startsWith('funnel:'));

/** The funnel's hourly counters of a commit (`funnelh:`, field `<stage>@<hour>`). */
const hourly = (commit: { counters?: { name: string; field: string }[] }) =>
  commit.counters?.filter((c) => c.name.startsWith('funnelh:'));

function step(
  event: MailboxEvent,
  record: ConversationRecord | null,
  message: MessageRecord | null,
  now = 1_000,
) {
  return runStep({ event, record, message, registry, now, newRunId: () => 'run-1' });
}

describe('the campaign funnel', () => {
  it('counts a started run’s message sent and delivered from the service’s statuses, once each', () => {
    const started = step(start, null, null).commit.record!;
    expect(started.campaign).toMatchObject({ name: 'spring', row: phone });
    const message: MessageRecord = {
      ...base,
      smsId: 'sms-1',
      status: 'sent',
      statusReason: '',
      runId: 'run-1',
    };
    const sent = step(status('n1', 'sent'), started, message).commit;
    expect(funnel(sent)).toEqual([{ name: 'funnel:paris:spring', field: 'sent', by: 1 }]);
    const delivered = step(status('n2', 'delivered'), sent.record!, message).commit;
    expect(funnel(delivered)).toEqual([{ name: 'funnel:paris:spring', field: 'delivered', by: 1 }]);
    // The same status again (a redelivery under another id) counts nothing more.
    expect(
      funnel(step(status('n3', 'delivered'), delivered.record!, message).commit) ?? [],
    ).toEqual([]);
  });

  it('counts nothing for a status of another run’s message', () => {
    const started = step(start, null, null).commit.record!;
    const older: MessageRecord = {
      ...base,
      smsId: 'sms-0',
      status: 'sent',
      statusReason: '',
      runId: 'run-0',
    };
    expect(step(status('n1', 'sent'), started, older).commit.counters ?? []).toEqual([]);
  });

  it('counts each stage, and the run’s start, in the UTC hour of the step too', () => {
    const at = Date.parse('2027-03-01T08:59:59.999Z');
    const begun = step(start, null, null, at).commit;
    expect(funnel(begun)).toEqual([]);
    expect(hourly(begun)).toEqual([
      { name: 'funnelh:paris:spring', field: 'started@2027-03-01T08', by: 1 },
    ]);
    const message: MessageRecord = {
      ...base,
      smsId: 'sms-1',
      status: 'delivered',
      statusReason: 'DELIVRD',
      runId: 'run-1',
    };
    const delivered = step(status('n1', 'delivered'), begun.record!, message, at + 1).commit;
    expect(hourly(delivered)).toEqual([
      { name: 'funnelh:paris:spring', field: 'sent@2027-03-01T09', by: 1 },
      { name: 'funnelh:paris:spring', field: 'delivered@2027-03-01T09', by: 1 },
    ]);
    // The hourly fields add up to the funnel's totals, and a repeated status adds to neither.
    const again = step(status('n2', 'delivered'), delivered.record!, message, at + 2).commit;
    expect(hourly(again) ?? []).toEqual([]);
    expect(hourly(delivered)?.map((c) => c.field.split('@')[0])).toEqual(
      funnel(delivered)?.map((c) => c.field),
    );
  });
});
