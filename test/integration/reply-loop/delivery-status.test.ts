import { afterEach, describe, expect, it } from 'vitest';
import { createBotRegistry } from '../../../src/bot/bot-registry.ts';
import echo from '../../fixtures/bots/echo-bot.ts';
import { location, type ReplyLoop, startReplyLoop } from '../../support/reply-loop.ts';
import { waitFor } from '../../support/wait-for.ts';

const registry = createBotRegistry([{ bot: echo, file: 'echo.ts' }]);

async function outcome(loop: ReplyLoop, phone: string, value: string): Promise<void> {
  const res = await fetch(`${loop.emulator.url}/_emulator/outcomes/${phone}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ outcome: value }),
  });
  expect(res.ok).toBe(true);
}

/** The statuses the echo bot heard, as `smsId:status:reason`, once the conversation holds `count`. */
function statusesHeard(loop: ReplyLoop, phone: string, done: (statuses: string[]) => boolean) {
  return waitFor(
    async () => {
      const record = await loop.store.getConversation({ location, phone });
      const statuses = (record?.snapshot as { context: { statuses: string[] } } | undefined)
        ?.context.statuses;
      return statuses && done(statuses) && { record: record!, statuses };
    },
    { message: `statuses heard by the bot of ${phone}` },
  );
}

describe.each(['redis', 'memory'] as const)(
  'delivery status in flows, on the %s store',
  (store) => {
    let loop: ReplyLoop;
    afterEach(() => loop?.close());

    it('tells the bot errored / invalid_phone_number, and ends the conversation by default', async () => {
      loop = await startReplyLoop({ store, registry });
      const phone = '33612349001';
      await outcome(loop, phone, 'invalid');
      await loop.start(phone, 'echo');
      const { record, statuses } = await statusesHeard(loop, phone, (s) =>
        s.some((x) => x.endsWith(':errored:invalid_phone_number')),
      );
      expect(statuses).toHaveLength(1);
      expect(record).toMatchObject({ status: 'done', endedReason: 'invalid_phone_number' });
    });

    it('tells the bot sent, then errored / EXPIRED, and keeps the conversation', async () => {
      loop = await startReplyLoop({ store, registry });
      const phone = '33612349002';
      await outcome(loop, phone, 'expired');
      await loop.start(phone, 'echo');
      const { record, statuses } = await statusesHeard(loop, phone, (s) =>
        s.some((x) => x.endsWith(':errored:EXPIRED')),
      );
      const smsId = statuses[0]!.split(':')[0]!;
      expect(statuses).toEqual([`${smsId}:sent:`, `${smsId}:errored:EXPIRED`]);
      expect(record.status).toBe('active');
      expect(await loop.store.getMessage(phone, smsId)).toMatchObject({
        status: 'errored',
        statusReason: 'EXPIRED',
        runId: record.runId,
        parts: 1,
      });
    });

    it('tells the bot send_failed at once when the service refuses for good (a landline)', async () => {
      loop = await startReplyLoop({ store, registry });
      const landline = '33123456789';
      await loop.start(landline, 'echo');
      const { statuses } = await statusesHeard(loop, landline, (s) => s.length > 0);
      expect(statuses).toEqual([':errored:send_failed']);
      expect(await loop.bodiesTo(landline)).toEqual([]);
    });

    it('tells the bot send_failed when transient failures outlast the send deadline', async () => {
      loop = await startReplyLoop({ store, registry, sendDeadlineMs: 300 });
      await fetch(`${loop.emulator.url}/_emulator/faults`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ path: 'POST /sms', rate: 1, status: 503 }),
      });
      const phone = '33612349003';
      await loop.start(phone, 'echo');
      const { statuses } = await statusesHeard(loop, phone, (s) => s.length > 0);
      expect(statuses).toEqual([':errored:send_failed']);
      const log = (await (
        await fetch(`${loop.emulator.url}/_emulator/requests?method=POST&path=/v1/sms`)
      ).json()) as unknown[];
      expect(log.length).toBeGreaterThan(1);
    });
  },
);
