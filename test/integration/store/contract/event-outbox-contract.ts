import { describe, expect, it } from 'vitest';
import type { OutboundEvent } from '../../../../src/events/outbound-event.ts';
import type { Store } from '../../../../src/store/store.ts';
import { claimStartAndReply, conversationRecord, location, t0 } from './fixtures.ts';

const leaseMs = 10_000;

function outboundEvent(phone: string, id: string, type = 'conversation.ended'): OutboundEvent {
  return {
    id,
    type,
    timestamp: new Date(t0).toISOString(),
    data: {
      location,
      bot: 'survey',
      botVersion: 'abc',
      runId: 'run-1',
      phone,
      maskedPhone: 'masked',
      // What cjson would alter if a script decoded it: an empty array, a unicode escape.
      payload: { endCode: 'final', result: { answers: [], note: 'a/b "c" é 🎉' } },
    },
  };
}

/** A step that queues `events` (ids `evt_e-1_<i>`), committed at t0. */
async function commitEvents(store: Store, count = 2) {
  const { phone, claim } = await claimStartAndReply(store);
  const events = Array.from({ length: count }, (_, i) => outboundEvent(phone, `evt_e-1_${i}`));
  const step = { eventId: 'e-1', expectedSeq: 0, record: conversationRecord(phone, 1) };
  const result = await store.commitStep(claim, { ...step, outbound: [], events }, t0);
  expect(result.ok).toBe(true);
  return { phone, claim, events, partition: store.partitionOf(phone) };
}

export function eventOutboxContract(store: () => Store): void {
  describe('event outbox', () => {
    it('queues the events in the commit, due at once, and a refused commit queues nothing', async () => {
      const { phone, claim } = await claimStartAndReply(store());
      const partition = store().partitionOf(phone);
      const refused = await store().commitStep(
        claim,
        {
          eventId: 'e-1',
          expectedSeq: 5,
          record: conversationRecord(phone, 6),
          outbound: [],
          events: [outboundEvent(phone, 'evt_e-1_0')],
        },
        t0,
      );
      expect(refused).toEqual({ ok: false, reason: 'stale' });
      expect(await store().claimDueEvents(partition, t0 + 1, leaseMs, 10)).toEqual([]);
      expect(await store().listEvents({ limit: 10 })).toEqual([]);
    });

    it('claims due events with a lease, soonest first, the event exactly as committed', async () => {
      const { events, partition } = await commitEvents(store());
      const claimed = await store().claimDueEvents(partition, t0 + 1, leaseMs, 10);
      expect(claimed.map((c) => c.event)).toEqual(events);
      expect(claimed[0]).toMatchObject({ partition, attempts: 0, queuedAt: t0 });
      // Leased: nothing more until the lease runs out, then the same events again.
      expect(await store().claimDueEvents(partition, t0 + leaseMs, leaseMs, 10)).toEqual([]);
      const again = await store().claimDueEvents(partition, t0 + 1 + leaseMs, leaseMs, 1);
      expect(again.map((c) => c.event.id)).toEqual(['evt_e-1_0']);
    });

    it('deletes a delivered event, and makes a retried one due at its time, one attempt more', async () => {
      const { partition } = await commitEvents(store());
      await store().claimDueEvents(partition, t0, leaseMs, 10);
      expect(await store().settleEvent(partition, 'evt_e-1_0', { delivered: true }, t0)).toBe(true);
      expect(await store().settleEvent(partition, 'evt_e-1_0', { delivered: true }, t0)).toBe(
        false,
      );
      const retry = { retryAt: t0 + 2_000, error: 'http_500' };
      expect(await store().settleEvent(partition, 'evt_e-1_1', retry, t0)).toBe(true);
      expect(await store().claimDueEvents(partition, t0 + 1_999, leaseMs, 10)).toEqual([]);
      const [due] = await store().claimDueEvents(partition, t0 + 2_000, leaseMs, 10);
      expect(due).toMatchObject({ attempts: 1, lastError: 'http_500', queuedAt: t0 });
      expect(due?.event.id).toBe('evt_e-1_1');
    });

    it('keeps a dead letter (phone masked in the list), and replays it with its id', async () => {
      const { partition, events, phone } = await commitEvents(store(), 1);
      await store().claimDueEvents(partition, t0, leaseMs, 10);
      const dead = { deadLetter: 'http_410' };
      expect(await store().settleEvent(partition, 'evt_e-1_0', dead, t0 + 5)).toBe(true);
      expect(await store().claimDueEvents(partition, t0 + 2 * leaseMs, leaseMs, 10)).toEqual([]);
      expect(await store().listEvents({ limit: 10 })).toEqual([]);
      const [failed, ...more] = await store().listEvents({ failed: true, limit: 10 });
      expect(more).toEqual([]);
      expect(failed).toMatchObject({ partition, attempts: 1, deadAt: t0 + 5, reason: 'http_410' });
      expect(failed?.event.data.phone).toBe('masked');
      expect(JSON.stringify(failed)).not.toContain(phone);

      expect(await store().replayEvent('evt_e-1_0', t0 + 100)).toBe(true);
      expect(await store().replayEvent('evt_e-1_0', t0 + 100)).toBe(false);
      expect(await store().listEvents({ failed: true, limit: 10 })).toEqual([]);
      const [replayed] = await store().claimDueEvents(partition, t0 + 100, leaseMs, 10);
      expect(replayed).toMatchObject({ attempts: 0, queuedAt: t0 + 100 });
      expect(replayed?.event).toEqual(events[0]);
    });

    it('keeps the subscriptions that took an event and those given up, and a replay keeps the first, not the second', async () => {
      const { partition } = await commitEvents(store(), 1);
      await store().claimDueEvents(partition, t0, leaseMs, 10);
      const first = {
        retryAt: t0 + 1_000,
        error: 'http_500 from b',
        deliveredTo: ['keyA'],
        gaveUpOn: { keyC: 'http_410' },
      };
      expect(await store().settleEvent(partition, 'evt_e-1_0', first, t0)).toBe(true);
      const [retried] = await store().claimDueEvents(partition, t0 + 1_000, leaseMs, 10);
      expect(retried).toMatchObject({ deliveredTo: ['keyA'], gaveUpOn: { keyC: 'http_410' } });
      // A second round adds to them (a key already there is not doubled).
      const dead = { deadLetter: 'http_410 from c', deliveredTo: ['keyB', 'keyA'] };
      expect(await store().settleEvent(partition, 'evt_e-1_0', dead, t0 + 1_000)).toBe(true);
      const [failed] = await store().listEvents({ failed: true, limit: 10 });
      expect(failed).toMatchObject({
        attempts: 2,
        reason: 'http_410 from c',
        deliveredTo: ['keyA', 'keyB'],
        gaveUpOn: { keyC: 'http_410' },
      });
      expect(await store().replayEvent('evt_e-1_0', t0 + 2_000)).toBe(true);
      const [replayed] = await store().claimDueEvents(partition, t0 + 2_000, leaseMs, 10);
      expect(replayed).toMatchObject({ attempts: 0, deliveredTo: ['keyA', 'keyB'] });
      expect(replayed?.gaveUpOn).toBeUndefined();
    });

    it("queues an operator's optout with the suppression it adds, and its optin with the removal, only when the list changes", async () => {
      const phone = '33612349901';
      const partition = store().partitionOf(phone);
      const optout = {
        ...outboundEvent(phone, 'evt_optout_1', 'optout'),
        timestamp: new Date(t0 + 5).toISOString(),
      };
      const again = { ...optout, id: 'evt_optout_2' };
      const first = await store().addSuppressions(
        location,
        [{ phone, at: t0, event: optout }],
        'api',
      );
      expect(first).toEqual({ added: 1, existing: 0 });
      // Already on the list: nothing changes, nothing is queued.
      const repeat = await store().addSuppressions(
        location,
        [{ phone, at: t0, event: again }],
        'api',
      );
      expect(repeat).toEqual({ added: 0, existing: 1 });
      const claimed = await store().claimDueEvents(partition, t0 + 5, leaseMs, 10);
      expect(claimed.map((c) => [c.event, c.queuedAt])).toEqual([[optout, t0 + 5]]);
      await store().settleEvent(partition, optout.id, { delivered: true }, t0 + 5);

      const optin = {
        ...outboundEvent(phone, 'evt_optin_1', 'optin'),
        timestamp: new Date(t0 + 9).toISOString(),
      };
      expect(await store().removeSuppression({ location, phone }, optin)).toBe(true);
      const missing = { ...optin, id: 'evt_optin_2' };
      expect(await store().removeSuppression({ location, phone }, missing)).toBe(false);
      const [queued, ...more] = await store().claimDueEvents(partition, t0 + 9, leaseMs, 10);
      expect(more).toEqual([]);
      expect(queued?.event).toEqual(optin);
      expect(await store().isSuppressed({ location, phone })).toBe(false);
    });

    it('lists queued events soonest due first, phones masked', async () => {
      const { partition, phone } = await commitEvents(store());
      await store().claimDueEvents(partition, t0, leaseMs, 1);
      const listed = await store().listEvents({ limit: 10 });
      expect(listed.map((e) => [e.event.id, e.dueAt])).toEqual([
        ['evt_e-1_1', t0],
        ['evt_e-1_0', t0 + leaseMs],
      ]);
      expect(JSON.stringify(listed)).not.toContain(phone);
    });
  });
}
