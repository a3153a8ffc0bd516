import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBotRegistry } from '../../../src/bot/bot-registry.ts';
import type { ConversationRecord } from '../../../src/store/records.ts';
import type { DirectCommitResult } from '../../../src/store/store.ts';
import echo from '../../fixtures/bots/echo-bot.ts';
import {
  location,
  type ReplyLoop,
  replyNotification,
  startReplyLoop,
} from '../../support/reply-loop.ts';
import { waitFor } from '../../support/wait-for.ts';

const key = (phone: string) => ({ location, phone });

/** The statuses the echo bot heard, as `smsId:status:reason`. */
function statusesOf(record: ConversationRecord | null): string[] | undefined {
  return (record?.snapshot as { context?: { statuses: string[] } } | undefined)?.context?.statuses;
}

/** An `sms.status` notification as the service posts it: the SMS object in its new status. */
function statusNotification(
  id: string,
  sms: { id: string; to: string; body: string },
  status: 'sent' | 'delivered',
) {
  return {
    id,
    webhookId: 'wh-1',
    type: 'sms.status',
    data: [
      {
        id: sms.id,
        from: '',
        to: sms.to,
        body: sms.body,
        status,
        statusReason: status === 'delivered' ? 'DELIVRD' : '',
        price: 0.05,
        parts: 1,
        createdAt: '2026-12-03T10:00:00.000Z',
        updatedAt: '2026-12-03T10:00:05.000Z',
      },
    ],
  };
}

// No webhook at the emulator: every status here is posted by the test, so which path it takes
// depends on nothing but the conversation's state.
describe.each(['redis', 'cluster', 'memory'] as const)(
  'a status notification on the %s store',
  (kind) => {
    let loop: ReplyLoop;
    /** Status event ids each ingest carried, and each commitDirect's event id and answer. */
    const ingested: string[] = [];
    const directs: Array<{ id: string; result?: DirectCommitResult }> = [];

    beforeAll(async () => {
      loop = await startReplyLoop({
        store: kind,
        webhook: false,
        registry: createBotRegistry([{ bot: echo, file: 'echo.ts' }]),
      });
      const ingest = loop.store.ingest.bind(loop.store);
      loop.store.ingest = async (notificationId, items, now, claimFor) => {
        for (const item of items) if (item.event.kind === 'status') ingested.push(item.event.id);
        return ingest(notificationId, items, now, claimFor);
      };
      const commitDirect = loop.store.commitDirect.bind(loop.store);
      loop.store.commitDirect = async (event, step, now, fields) => {
        const call: (typeof directs)[number] = { id: event.id };
        directs.push(call);
        call.result = await commitDirect(event, step, now, fields);
        return call.result;
      };
    });
    afterAll(() => loop.close());

    /** Starts the echo bot; answers its greeting's SMS once its send is recorded. */
    async function started(phone: string) {
      expect(await loop.notify(replyNotification(`start-${phone}`, phone, 'ECHO start'))).toBe(200);
      await loop.waitForBodies(phone, 2);
      const res = await fetch(`${loop.emulator.url}/_emulator/messages?to=${phone}`);
      const [greeting] = (await res.json()) as Array<{ id: string; to: string; body: string }>;
      await waitFor(
        async () => {
          const [message, outbound, events] = await Promise.all([
            loop.store.getMessage(phone, greeting!.id),
            loop.store.pendingOutbound(key(phone)),
            loop.store.pendingEvents(key(phone)),
          ]);
          return message?.botId === 'echo' && outbound.length === 0 && events.length === 0;
        },
        { message: `${phone}'s sends recorded and nothing pending` },
      );
      return greeting!;
    }

    it('is stepped in its request when the value holds its message: one commit, no ingest, the record moved, the bot told once', async () => {
      const phone = '33612348101';
      const sms = await started(phone);
      const id = `delivered-${phone}`;

      expect(await loop.notify(statusNotification(id, sms, 'delivered'))).toBe(200);
      const heard = `${sms.id}:delivered:DELIVRD`;
      if (kind === 'memory') {
        // No direct path for statuses on memory: the mailbox, as before.
        expect(ingested).toContain(`${id}:0`);
        await waitFor(
          async () => statusesOf(await loop.store.getConversation(key(phone)))?.includes(heard),
          { message: 'the bot told of the delivery' },
        );
      } else {
        // Read right after the 200: the step is committed, and nothing went through a mailbox.
        expect(statusesOf(await loop.store.getConversation(key(phone)))).toEqual([heard]);
        expect(directs.filter((call) => call.id === `${id}:0`)).toEqual([
          { id: `${id}:0`, result: expect.objectContaining({ ok: true }) },
        ]);
        expect(ingested).not.toContain(`${id}:0`);
      }
      expect(await loop.store.getMessage(phone, sms.id)).toMatchObject({
        status: 'delivered',
        statusReason: 'DELIVRD',
        price: 0.05,
        parts: 1,
        botId: 'echo',
      });

      // The same notification again, then the earlier status arriving late: neither moves the
      // record, so the bot hears nothing more.
      expect(await loop.notify(statusNotification(id, sms, 'delivered'))).toBe(200);
      expect(await loop.notify(statusNotification(`sent-${phone}`, sms, 'sent'))).toBe(200);
      await waitFor(
        async () =>
          (await loop.store.pendingEvents(key(phone))).length === 0 &&
          (await loop.store.peekConversation(key(phone))) !== null,
        { message: `${phone}'s mailbox empty` },
      );
      expect(statusesOf(await loop.store.getConversation(key(phone)))).toEqual([heard]);
      expect(await loop.store.getMessage(phone, sms.id)).toMatchObject({ status: 'delivered' });
    });

    it('goes through the mailbox when its message is not in the value (a status before the send is recorded, or of an sms never sent)', async () => {
      const phone = '33612348102';
      await started(phone);
      const id = `unknown-${phone}`;
      const sms = { id: 'sms-never-recorded', to: phone, body: 'no such message' };

      expect(await loop.notify(statusNotification(id, sms, 'delivered'))).toBe(200);
      expect(ingested).toContain(`${id}:0`);
      expect(directs.filter((call) => call.id === `${id}:0`)).toEqual([]);
      expect(statusesOf(await loop.store.getConversation(key(phone)))).toEqual([]);
    });
  },
);
