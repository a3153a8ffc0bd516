import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBotRegistry } from '../../../src/bot/bot-registry.ts';
import { createCompliancePolicy } from '../../../src/compliance/create-compliance-policy.ts';
import type { ConversationRecord } from '../../../src/store/records.ts';
import type { DirectCommitResult, IngestResult } from '../../../src/store/store.ts';
import echo from '../../fixtures/bots/echo-bot.ts';
import {
  location,
  type ReplyLoop,
  replyNotification,
  startReplyLoop,
} from '../../support/reply-loop.ts';
import { waitFor } from '../../support/wait-for.ts';

const greeting = 'Echo bot here. Say anything.';
const policy = createCompliancePolicy();
const stopConfirmation = policy.text('opt-out', policy.match('STOP')!.language);

const key = (phone: string) => ({ location, phone });
/** The event id the webhook gives the one item of notification `id`. */
const eventOf = (notificationId: string) => `${notificationId}:0`;

/** The echo bot's context: the reply bodies it saw, in order, and the statuses it heard. */
function contextOf(record: ConversationRecord | null) {
  return (record?.snapshot as { context?: { seen: string[]; statuses: string[] } } | undefined)
    ?.context;
}

/** What the store was asked, by the webhook and the worker, for each reply event. */
interface Calls {
  /** Every ingest carrying a reply: its reply event ids and its answer (undefined: it threw). */
  ingests: Array<{ ids: string[]; result?: IngestResult }>;
  /** Every commitDirect: its event id and its answer (undefined: it threw, or is in flight). */
  directs: Array<{ id: string; result?: DirectCommitResult }>;
}

describe.each(['redis', 'cluster', 'memory'] as const)(
  'the direct turn on the %s store',
  (kind) => {
    let loop: ReplyLoop;
    const calls: Calls = { ingests: [], directs: [] };
    const ingestsOf = (id: string) => calls.ingests.filter((call) => call.ids.includes(id));
    const directsOf = (id: string) => calls.directs.filter((call) => call.id === id);

    beforeAll(async () => {
      loop = await startReplyLoop({
        store: kind,
        registry: createBotRegistry([{ bot: echo, file: 'echo.ts' }]),
      });
      // The app holds this very object: what it calls goes through the wrappers.
      const ingest = loop.store.ingest.bind(loop.store);
      loop.store.ingest = async (notificationId, items, now, claimFor) => {
        const ids = items
          .filter((item) => item.event.kind === 'reply')
          .map((item) => item.event.id);
        const call: Calls['ingests'][number] = { ids };
        if (ids.length > 0) calls.ingests.push(call);
        call.result = await ingest(notificationId, items, now, claimFor);
        return call.result;
      };
      const commitDirect = loop.store.commitDirect.bind(loop.store);
      loop.store.commitDirect = async (event, step, now, fields) => {
        const call: Calls['directs'][number] = { id: event.id };
        calls.directs.push(call);
        call.result = await commitDirect(event, step, now, fields);
        return call.result;
      };
    });
    afterAll(() => loop.close());

    /**
     * Waits until the phone's conversation is idle: `sent` SMS went out, each reported
     * delivered to the bot, nothing waits in its mailbox or outbox, and nobody holds it.
     */
    async function untilIdle(phone: string, sent: number): Promise<ConversationRecord> {
      return waitFor(
        async () => {
          const [bodies, record, events, outbound, view] = await Promise.all([
            loop.bodiesTo(phone),
            loop.store.getConversation(key(phone)),
            loop.store.pendingEvents(key(phone)),
            loop.store.pendingOutbound(key(phone)),
            loop.store.peekConversation(key(phone)),
          ]);
          const delivered = contextOf(record)?.statuses.filter((s) => s.includes(':delivered:'));
          return (
            bodies.length >= sent &&
            delivered?.length === bodies.length &&
            events.length === 0 &&
            outbound.length === 0 &&
            view !== null &&
            record
          );
        },
        { timeout: 10_000, message: `${phone}'s conversation idle after ${sent} SMS` },
      );
    }

    /** Starts the echo bot by its keyword (its greeting, and the trigger echoed as turn #1). */
    async function started(phone: string): Promise<ConversationRecord> {
      expect(await loop.notify(replyNotification(`start-${phone}`, phone, 'ECHO start'))).toBe(200);
      expect(await loop.waitForBodies(phone, 2)).toEqual([greeting, '#1: ECHO start']);
      return untilIdle(phone, 2);
    }

    it('steps a reply to an idle active conversation in its request: committed before the 200, no ingest', async () => {
      const phone = '33612349001';
      await started(phone);
      const id = `direct-${phone}`;

      expect(await loop.notify(replyNotification(id, phone, 'hello direct'))).toBe(200);
      // Read right after the 200: the reply's turn is already in the record.
      const record = await loop.store.getConversation(key(phone));
      expect(contextOf(record)?.seen).toEqual(['ECHO start', 'hello direct']);
      expect(directsOf(eventOf(id))).toEqual([
        { id: eventOf(id), result: expect.objectContaining({ ok: true }) },
      ]);
      expect(ingestsOf(eventOf(id))).toEqual([]);
      expect(await loop.store.listApplied(key(phone))).toContain(eventOf(id));

      expect(await loop.waitForBodies(phone, 3)).toEqual([
        greeting,
        '#1: ECHO start',
        '#2: hello direct',
      ]);
    });

    it('answers 200 to the redelivery of a reply committed directly, and applies nothing more', async () => {
      const phone = '33612349002';
      await started(phone);
      const id = `redelivered-${phone}`;
      const notification = replyNotification(id, phone, 'once');
      expect(await loop.notify(notification)).toBe(200);
      expect(directsOf(eventOf(id))).toEqual([
        { id: eventOf(id), result: expect.objectContaining({ ok: true }) },
      ]);

      // At once, its answer still on its way (its statuses may keep the conversation busy:
      // either path may take it): the reply is not applied again.
      expect(await loop.notify(notification)).toBe(200);
      expect(contextOf(await loop.store.getConversation(key(phone)))?.seen).toEqual([
        'ECHO start',
        'once',
      ]);
      // Once idle again (the answer's statuses stepped too, each a seq of its own), the direct
      // turn itself finds it committed before.
      const { seq } = await untilIdle(phone, 3);
      const directsBefore = directsOf(eventOf(id)).length;
      expect(await loop.notify(notification)).toBe(200);
      expect(directsOf(eventOf(id)).slice(directsBefore)).toEqual([
        { id: eventOf(id), result: { ok: false, reason: 'duplicate' } },
      ]);
      expect((await loop.store.getConversation(key(phone)))?.seq).toBe(seq);

      // Whatever path each redelivery took, none was committed or pushed again.
      expect(directsOf(eventOf(id)).filter((call) => call.result?.ok)).toHaveLength(1);
      for (const call of ingestsOf(eventOf(id))) {
        expect(call.result).toEqual({ duplicate: true, pushed: 0 });
      }
      // Idle: anything a redelivery queued would have been sent (and reported) by now.
      const record = await untilIdle(phone, 3);
      expect(record.seq).toBe(seq);
      expect(contextOf(record)?.seen).toEqual(['ECHO start', 'once']);
      expect(await loop.bodiesTo(phone)).toEqual([greeting, '#1: ECHO start', '#2: once']);
      expect((await loop.store.listApplied(key(phone))).filter((e) => e === eventOf(id))).toEqual([
        eventOf(id),
      ]);
    });

    it('steps a reply again on a new look when another commit came between its look and its commit', async () => {
      const phone = '33612349005';
      await started(phone);
      const first = `overtaken-${phone}`;
      const second = `overtaking-${phone}`;
      // Right after the first reply's look, the second reply is taken in and committed (its
      // own direct turn, before its 200): the first's commit finds the conversation moved.
      const peek = loop.store.peekConversation.bind(loop.store);
      let looks = 0;
      loop.store.peekConversation = async (key, originSmsId, statusRank) => {
        const view = await peek(key, originSmsId, statusRank);
        if (key.phone === phone && looks++ === 0) {
          expect(await loop.notify(replyNotification(second, phone, 'second'))).toBe(200);
        }
        return view;
      };
      try {
        expect(await loop.notify(replyNotification(first, phone, 'first'))).toBe(200);
      } finally {
        loop.store.peekConversation = peek;
      }
      // Refused as stale once (nothing written), then committed on the new look, in its
      // request: no ingest.
      expect(directsOf(eventOf(first)).map((call) => call.result)).toEqual([
        { ok: false, reason: 'stale' },
        expect.objectContaining({ ok: true }),
      ]);
      expect(ingestsOf(eventOf(first))).toEqual([]);
      const record = await loop.store.getConversation(key(phone));
      expect(contextOf(record)?.seen).toEqual(['ECHO start', 'second', 'first']);
      expect(await loop.waitForBodies(phone, 4)).toEqual([
        greeting,
        '#1: ECHO start',
        '#2: second',
        '#3: first',
      ]);
    });

    it('applies each of 20 replies of one phone posted at once exactly once, whichever path each took', async () => {
      const phone = '33612349003';
      await started(phone);
      const bodies = Array.from({ length: 20 }, (_, i) => `burst ${i + 1}`);
      const ids = bodies.map((_, i) => `burst-${phone}-${i + 1}`);
      const statuses = await Promise.all(
        bodies.map((body, i) => loop.notify(replyNotification(ids[i]!, phone, body))),
      );
      expect(statuses).toEqual(Array(20).fill(200));

      // Each event went in once: committed directly, or pushed by an ingest, never both.
      for (const id of ids.map(eventOf)) {
        const direct = directsOf(id).filter((call) => call.result?.ok).length;
        const pushed = ingestsOf(id).filter((call) => (call.result?.pushed ?? 0) > 0).length;
        expect({ id, took: direct + pushed }).toEqual({ id, took: 1 });
      }

      const seen = await waitFor(
        async () => {
          const list = contextOf(await loop.store.getConversation(key(phone)))?.seen;
          return list?.length === 21 && list;
        },
        { timeout: 15_000, message: '21 replies applied' },
      );
      expect([...seen].sort()).toEqual(['ECHO start', ...bodies].sort());
      const sent = await loop.waitForBodies(phone, 22, 15_000);
      // 21 answers, numbered by turn, in the order the bot saw the replies.
      expect(sent).toEqual([greeting, ...seen.map((body, i) => `#${i + 1}: ${body}`)]);

      const record = await untilIdle(phone, 22);
      expect(contextOf(record)?.seen).toHaveLength(21);
      expect(await loop.bodiesTo(phone)).toHaveLength(22);
      const applied = await loop.store.listApplied(key(phone));
      for (const id of ids.map(eventOf)) expect(applied.filter((e) => e === id)).toEqual([id]);
    });

    it('takes an opt-out keyword (STOP) through the ingest, never the direct turn', async () => {
      const phone = '33612349004';
      await started(phone);
      const id = `stop-${phone}`;
      expect(await loop.notify(replyNotification(id, phone, 'STOP'))).toBe(200);
      // Suppressed by the webhook before its 200, and taken in by the ingest.
      expect(await loop.store.isSuppressed(key(phone))).toBe(true);
      expect(ingestsOf(eventOf(id))).toEqual([
        { ids: [eventOf(id)], result: expect.objectContaining({ duplicate: false, pushed: 1 }) },
      ]);

      // Its step (by the worker) ends the conversation and confirms.
      expect(await loop.waitForBodies(phone, 3)).toEqual([
        greeting,
        '#1: ECHO start',
        stopConfirmation,
      ]);
      await waitFor(
        async () => {
          const record = await loop.store.getConversation(key(phone));
          return record?.status === 'done' && record.endedReason === 'opted_out';
        },
        { message: 'the conversation ended by the opt-out' },
      );
      expect(directsOf(eventOf(id))).toEqual([]);
      expect(await loop.store.listApplied(key(phone))).toContain(eventOf(id));
    });
  },
);
