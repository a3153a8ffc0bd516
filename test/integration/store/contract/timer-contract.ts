import { describe, expect, it, vi } from 'vitest';
import type { TimerEvent, TimerRecord } from '../../../../src/store/records.ts';
import type { QueueName, Store } from '../../../../src/store/store.ts';
import {
  claimOf,
  commitTimers,
  conversationRecord,
  keyOf,
  leaseMs,
  location,
  phoneInSamePartition,
  phonesInDistinctPartitions,
  replyEvent,
  startEvent,
  t0,
  timerRecord,
  untilHeard,
} from './fixtures.ts';

/** The event `claimDueTimers` must put in the mailbox for `timer`, received at `now`. */
function timerEvent(timer: TimerRecord, now: number): TimerEvent {
  return {
    v: 1,
    id: `timer:${timer.id}:${timer.dueAt}`,
    kind: 'timer',
    location: timer.location,
    phone: timer.phone,
    receivedAt: now,
    runId: timer.runId,
    timerId: timer.id,
    dueAt: timer.dueAt,
    event: timer.event,
  };
}

export function timerContract(store: () => Store): void {
  describe('durable timers', () => {
    it('keeps a timer set in a commit pending, and moves it only once it is due', async () => {
      const [phone = ''] = phonesInDistinctPartitions(store(), 1);
      const partition = store().partitionOf(phone);
      const timer = timerRecord(phone, 'xstate.after.1000.survey.asking', t0 + 1_000);
      await commitTimers(store(), phone, { set: [timer], cancel: [] });

      expect(await store().pendingTimers(keyOf(phone))).toEqual([timer]);
      expect(await store().nextTimerDue(partition)).toBe(t0 + 1_000);
      expect(await store().claimDueTimers(partition, t0 + 999, 10)).toBe(0);
      expect(await store().pendingEvents(keyOf(phone))).toEqual([]);

      expect(await store().claimDueTimers(partition, t0 + 1_000, 10)).toBe(1);
      expect(await store().pendingTimers(keyOf(phone))).toEqual([]);
      expect(await store().nextTimerDue(partition)).toBeNull();
      expect(await store().pendingEvents(keyOf(phone))).toEqual([timerEvent(timer, t0 + 1_000)]);
    });

    it('moves a due timer into the mailbox as its TimerEvent, payload intact, and makes the conversation ready', async () => {
      const [phone = ''] = phonesInDistinctPartitions(store(), 1);
      const partition = store().partitionOf(phone);
      // Shapes a decode/encode round trip in Lua would change: [] vs {}, 17 digits, unicode.
      const event = {
        type: 'remind',
        items: [],
        nested: { list: [1, 'two', null], empty: {} },
        ratio: 0.1 + 0.2,
        big: 2 ** 60,
        text: 'é "quoted" a/b 🎉',
      };
      const timer = timerRecord(phone, 'remind', t0 + 60_000, event);
      await commitTimers(store(), phone, { set: [timer], cancel: [] });
      expect(await store().claim('inbox', partition, leaseMs, t0 + 61_000)).toBeNull();

      expect(await store().claimDueTimers(partition, t0 + 61_000, 10)).toBe(1);
      const claim = await claimOf(store(), 'inbox', phone, t0 + 61_000);
      const view = await store().readInbox(claim);
      expect(view.next).toEqual(timerEvent(timer, t0 + 61_000));
      expect(view.next).toMatchObject({ event: { items: [], nested: { empty: {} } } });
    });

    it('puts a timer behind the events already in the mailbox, ordered like any other event', async () => {
      const [phone = ''] = phonesInDistinctPartitions(store(), 1);
      const partition = store().partitionOf(phone);
      const timer = timerRecord(phone, 'remind', t0 + 1_000);
      await commitTimers(store(), phone, { set: [timer], cancel: [] });
      await store().ingest('n-2', [{ event: replyEvent('e-2', phone) }], t0 + 1_500);

      await store().claimDueTimers(partition, t0 + 2_000, 10);
      await store().ingest('n-3', [{ event: replyEvent('e-3', phone) }], t0 + 2_500);

      const ids = (await store().pendingEvents(keyOf(phone))).map((e) => e.id);
      expect(ids).toEqual(['e-2', `timer:${timer.id}:${timer.dueAt}`, 'e-3']);
      await claimOf(store(), 'inbox', phone, t0 + 3_000);
    });

    it('leaves a conversation claimed when its timer comes due to its holder, behind the lease', async () => {
      const [phone = ''] = phonesInDistinctPartitions(store(), 1);
      const partition = store().partitionOf(phone);
      const timer = timerRecord(phone, 'remind', t0 + 1_000);
      await commitTimers(store(), phone, { set: [timer], cancel: [] });
      await store().ingest('n-2', [{ event: replyEvent('e-2', phone) }], t0 + 1_000);
      const claim = await claimOf(store(), 'inbox', phone, t0 + 1_000);

      expect(await store().claimDueTimers(partition, t0 + 1_000, 10)).toBe(1);
      expect(await store().claim('inbox', partition, leaseMs, t0 + 1_000)).toBeNull();
      const result = await store().commitStep(
        claim,
        { eventId: 'e-2', expectedSeq: 1, record: null, outbound: [] },
        t0 + 1_000,
      );
      expect(result).toMatchObject({ ok: true, next: { next: timerEvent(timer, t0 + 1_000) } });
    });

    it('fires a timer once: a second claim, or concurrent ones, move nothing more', async () => {
      const [phone = ''] = phonesInDistinctPartitions(store(), 1);
      const partition = store().partitionOf(phone);
      const timers = [1, 2, 3].map((n) => timerRecord(phone, `t${n}`, t0 + n));
      await commitTimers(store(), phone, { set: timers, cancel: [] });

      const moved = await Promise.all(
        Array.from({ length: 6 }, () => store().claimDueTimers(partition, t0 + 10, 1)),
      );
      expect(moved.reduce((a, b) => a + b, 0)).toBe(3);
      expect(await store().claimDueTimers(partition, t0 + 10, 10)).toBe(0);
      const ids = (await store().pendingEvents(keyOf(phone))).map((e) => e.id);
      expect(ids).toEqual(timers.map((t) => `timer:${t.id}:${t.dueAt}`));
    });

    it('deletes a timer cancelled by a later commit: it never comes due', async () => {
      const [phone = ''] = phonesInDistinctPartitions(store(), 1);
      const partition = store().partitionOf(phone);
      const kept = timerRecord(phone, 'expire', t0 + 5_000);
      const cancelled = timerRecord(phone, 'remind', t0 + 1_000);
      await commitTimers(store(), phone, { set: [kept, cancelled], cancel: [] });
      await commitTimers(
        store(),
        phone,
        { set: [], cancel: [cancelled.id, 'run-1:unknown'] },
        t0 + 1,
      );

      expect(await store().pendingTimers(keyOf(phone))).toEqual([kept]);
      // nextTimerDue may answer earlier than the earliest pending timer until a claim passes
      // that time (the Redis entry is moved later only then): it never answers later.
      expect(await store().nextTimerDue(partition)).toBeLessThanOrEqual(t0 + 5_000);
      expect(await store().claimDueTimers(partition, t0 + 4_999, 10)).toBe(0);
      expect(await store().nextTimerDue(partition)).toBe(t0 + 5_000);
      expect(await store().pendingEvents(keyOf(phone))).toEqual([]);
    });

    it('lets a conversation cancel only its own timers', async () => {
      const [phone = ''] = phonesInDistinctPartitions(store(), 1);
      const neighbour = phoneInSamePartition(store(), phone);
      const theirs = timerRecord(neighbour, 'remind', t0 + 1_000, undefined, 'run-9');
      await commitTimers(store(), neighbour, { set: [theirs], cancel: [] });
      await commitTimers(store(), phone, { set: [], cancel: [theirs.id] });

      expect(await store().pendingTimers(keyOf(neighbour))).toEqual([theirs]);
      expect(await store().claimDueTimers(store().partitionOf(phone), t0 + 1_000, 10)).toBe(1);
    });

    it('replaces a timer set again with the same id: its new due time and event count', async () => {
      const [phone = ''] = phonesInDistinctPartitions(store(), 1);
      const partition = store().partitionOf(phone);
      const first = timerRecord(phone, 'remind', t0 + 1_000, { type: 'first' });
      const later = timerRecord(phone, 'remind', t0 + 5_000, { type: 'second' });
      await commitTimers(store(), phone, { set: [first], cancel: [] });
      await commitTimers(store(), phone, { set: [later], cancel: [] }, t0 + 1);

      expect(await store().pendingTimers(keyOf(phone))).toEqual([later]);
      expect(await store().nextTimerDue(partition)).toBeLessThanOrEqual(t0 + 5_000);
      expect(await store().claimDueTimers(partition, t0 + 4_999, 10)).toBe(0);
      expect(await store().nextTimerDue(partition)).toBe(t0 + 5_000);

      const sooner = timerRecord(phone, 'remind', t0 + 2_000, { type: 'third' });
      await commitTimers(store(), phone, { set: [sooner], cancel: [] }, t0 + 2);
      expect(await store().claimDueTimers(partition, t0 + 10_000, 10)).toBe(1);
      expect(await store().pendingEvents(keyOf(phone))).toEqual([timerEvent(sooner, t0 + 10_000)]);
    });

    it('moves at most `limit` timers, soonest first, and leaves the rest for later', async () => {
      const [phone = ''] = phonesInDistinctPartitions(store(), 1);
      const neighbour = phoneInSamePartition(store(), phone);
      const partition = store().partitionOf(phone);
      const mine = [5, 1, 3].map((n) => timerRecord(phone, `t${n}`, t0 + n));
      const theirs = [4, 2].map((n) => timerRecord(neighbour, `t${n}`, t0 + n, undefined, 'run-2'));
      await commitTimers(store(), phone, { set: mine, cancel: [] });
      await commitTimers(store(), neighbour, { set: theirs, cancel: [] });
      expect((await store().pendingTimers(keyOf(phone))).map((t) => t.dueAt)).toEqual([
        t0 + 1,
        t0 + 3,
        t0 + 5,
      ]);

      expect(await store().claimDueTimers(partition, t0 + 10, 2)).toBe(2);
      expect(await store().nextTimerDue(partition)).toBe(t0 + 3);
      expect((await store().pendingTimers(keyOf(neighbour))).map((t) => t.dueAt)).toEqual([t0 + 4]);
      expect(await store().claimDueTimers(partition, t0 + 10, 2)).toBe(2);
      expect(await store().claimDueTimers(partition, t0 + 10, 2)).toBe(1);
      expect(await store().nextTimerDue(partition)).toBeNull();

      const dueTimes = async (p: string) =>
        (await store().pendingEvents(keyOf(p))).map((e) => (e as TimerEvent).dueAt);
      expect(await dueTimes(phone)).toEqual([t0 + 1, t0 + 3, t0 + 5]);
      expect(await dueTimes(neighbour)).toEqual([t0 + 2, t0 + 4]);
    });

    it('keeps timers to their partition: nextTimerDue and claimDueTimers of another see none', async () => {
      const [phone = '', other = ''] = phonesInDistinctPartitions(store(), 2);
      await commitTimers(store(), phone, { set: [timerRecord(phone, 'a', t0 + 7)], cancel: [] });
      await commitTimers(store(), other, { set: [timerRecord(other, 'b', t0 + 3)], cancel: [] });

      expect(await store().nextTimerDue(store().partitionOf(phone))).toBe(t0 + 7);
      expect(await store().nextTimerDue(store().partitionOf(other))).toBe(t0 + 3);
      expect(await store().claimDueTimers(store().partitionOf(other), t0 + 10, 10)).toBe(1);
      expect(await store().pendingTimers(keyOf(phone))).toHaveLength(1);
      expect(await store().pendingEvents(keyOf(phone))).toEqual([]);
    });

    it('writes no timer when the commit is refused', async () => {
      const [phone = ''] = phonesInDistinctPartitions(store(), 1);
      await store().ingest('n-1', [{ event: startEvent('e-1', phone) }], t0);
      const claim = await claimOf(store(), 'inbox', phone, t0);
      const step = {
        eventId: 'e-1',
        expectedSeq: 0,
        record: conversationRecord(phone, 1),
        outbound: [],
        timers: { set: [timerRecord(phone, 'remind', t0 + 1)], cancel: [] },
      };
      expect(await store().commitStep({ ...claim, token: 'not-mine' }, step, t0)).toEqual({
        ok: false,
        reason: 'lost-lock',
      });
      expect(await store().commitStep(claim, { ...step, eventId: 'e-0' }, t0)).toEqual({
        ok: false,
        reason: 'stale',
      });
      expect(await store().pendingTimers(keyOf(phone))).toEqual([]);
      expect(await store().nextTimerDue(store().partitionOf(phone))).toBeNull();
    });

    it('rejects a timer of another conversation, one both set and cancelled, and a bad limit', async () => {
      const [phone = '', other = ''] = phonesInDistinctPartitions(store(), 2);
      await store().ingest('n-1', [{ event: startEvent('e-1', phone) }], t0);
      const claim = await claimOf(store(), 'inbox', phone, t0);
      const step = (set: TimerRecord[], cancel: string[]) => ({
        eventId: 'e-1',
        expectedSeq: 0,
        record: null,
        outbound: [],
        timers: { set, cancel },
      });
      const foreign = timerRecord(other, 'remind', t0 + 1);
      await expect(store().commitStep(claim, step([foreign], []), t0)).rejects.toThrow(TypeError);
      const both = timerRecord(phone, 'remind', t0 + 1);
      await expect(store().commitStep(claim, step([both], [both.id]), t0)).rejects.toThrow(
        /both set and cancelled/,
      );
      const partition = store().partitionOf(phone);
      await expect(store().claimDueTimers(partition, t0, 0)).rejects.toThrow(RangeError);
      await expect(store().claimDueTimers(partition, Number.NaN, 1)).rejects.toThrow(RangeError);
      expect(await store().pendingEvents({ location, phone })).toHaveLength(1);
    });

    it('announces the inbox of the partition after claimDueTimers moved something, and only then', async () => {
      const [phone = '', other = ''] = phonesInDistinctPartitions(store(), 2);
      const partition = store().partitionOf(phone);
      await commitTimers(store(), phone, {
        set: [timerRecord(phone, 'remind', t0 + 1_000)],
        cancel: [],
      });
      const heard: [QueueName, number][] = [];
      const unsubscribe = store().onReady((queue, p) => heard.push([queue, p]));
      // Heard once the subscription is active, and again after a step: all before it is in.
      const heardFromOther = () => untilHeard(store(), heard, store().partitionOf(other));
      await heardFromOther();
      heard.length = 0;

      expect(await store().claimDueTimers(partition, t0 + 999, 10)).toBe(0);
      await heardFromOther();
      expect(heard).not.toContainEqual(['inbox', partition]);

      expect(await store().claimDueTimers(partition, t0 + 1_000, 10)).toBe(1);
      await vi.waitFor(() => expect(heard).toContainEqual(['inbox', partition]));
      unsubscribe();
    });
  });
}
