import { describe, expect, it } from 'vitest';
import { MemoryTimers } from '../../../../src/store/memory/memory-timers.ts';
import type { TimerRecord } from '../../../../src/store/records.ts';
import { timerRecordOf } from '../../../../src/store/timer-event-json.ts';

const timer = (phone: string, sendId: string, dueAt: number): TimerRecord => ({
  v: 1,
  id: `run-${phone}:${sendId}`,
  location: 'paris',
  phone,
  runId: `run-${phone}`,
  sendId,
  dueAt,
  event: { type: sendId },
});

/** A small deterministic generator (mulberry32), so a failure replays. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

describe('MemoryTimers', () => {
  it('agrees with a plain map under random sets, replacements, cancels and claims', () => {
    const next = random(42);
    const pick = <T>(items: readonly T[]) => items[Math.floor(next() * items.length)]!;
    const timers = new MemoryTimers();
    const model = new Map<string, TimerRecord>();
    const phones = ['1', '2', '3'];
    const sendIds = ['a', 'b', 'c', 'd', 'e', 'f'];
    let now = 0;

    for (let step = 0; step < 5_000; step++) {
      const phone = pick(phones);
      const roll = next();
      if (roll < 0.6) {
        const t = timer(phone, pick(sendIds), now + Math.floor(next() * 50));
        timers.set(`paris:${phone}`, t);
        model.set(t.id, t);
      } else if (roll < 0.8) {
        const id = `run-${pick(phones)}:${pick(sendIds)}`;
        timers.cancel(`paris:${phone}`, id);
        if (model.get(id)?.phone === phone) model.delete(id);
      } else {
        now += Math.floor(next() * 20);
        const limit = 1 + Math.floor(next() * 4);
        const expected = [...model.values()]
          .filter((t) => t.dueAt <= now)
          .sort((a, b) => a.dueAt - b.dueAt || (a.id < b.id ? -1 : 1))
          .slice(0, limit);
        const taken = timers.takeDue(now, limit);
        expect(taken.map((t) => timerRecordOf(t.eventStart))).toEqual(expected);
        for (const t of expected) model.delete(t.id);
      }
      const soonest = Math.min(...[...model.values()].map((t) => t.dueAt));
      expect(timers.next()).toBe(Number.isFinite(soonest) ? soonest : null);
    }
    for (const phone of phones) {
      const mine = [...model.values()]
        .filter((t) => t.phone === phone)
        .sort((a, b) => a.dueAt - b.dueAt || (a.id < b.id ? -1 : 1));
      expect(timers.pending(`paris:${phone}`).map(timerRecordOf)).toEqual(mine);
    }
  });

  it('keeps its heap bounded when the same timers are set again and again', () => {
    const timers = new MemoryTimers();
    for (let round = 0; round < 10_000; round++) timers.set('paris:1', timer('1', 'a', round));
    expect((timers as unknown as { heap: unknown[] }).heap.length).toBeLessThan(100);
    expect(timers.takeDue(Number.MAX_SAFE_INTEGER, 10)).toHaveLength(1);
  });
});
