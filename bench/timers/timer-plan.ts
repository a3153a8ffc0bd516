// The timers both variants of the benchmark handle, made the same way in every process: timer
// k of n is due `offset(k)` ms after `firstDue`, and conversation c holds timers c, c + C, …
import type { TimerEvent, TimerRecord } from '../../src/store/records.ts';
import type { Store } from '../../src/store/store.ts';

export interface TimerPlan {
  timers: number;
  perConversation: number;
  /** The due times spread evenly over this many ms (0: all due at once). */
  spreadMs: number;
}

/** The virtual time of the first due time. Processes map their clocks onto it. */
export const firstDue = 1_800_000_000_000;
export const location = 'bench';

export const conversationsOf = (plan: TimerPlan) => Math.ceil(plan.timers / plan.perConversation);
export const phoneOf = (conversation: number) => `3360${String(conversation).padStart(8, '0')}`;
export const dueOf = (plan: TimerPlan, k: number) =>
  firstDue + Math.floor((k * plan.spreadMs) / plan.timers);
export const lastDueOf = (plan: TimerPlan) => dueOf(plan, plan.timers - 1);

/** The timers of conversation `c`, spread over the whole window. */
export function timersOf(plan: TimerPlan, c: number): TimerRecord[] {
  const conversations = conversationsOf(plan);
  const phone = phoneOf(c);
  const runId = `run-${c}`;
  const timers: TimerRecord[] = [];
  for (let j = 0; j < plan.perConversation; j++) {
    const k = j * conversations + c;
    if (k >= plan.timers) break;
    const sendId = `xstate.after.reminder.${j}`;
    timers.push({
      v: 1,
      id: `${runId}:${sendId}`,
      location,
      phone,
      runId,
      sendId,
      dueAt: dueOf(plan, k),
      event: { type: 'reminder', attempt: j },
    });
  }
  return timers;
}

/**
 * Sets every timer of the plan through the real write path: one start event per conversation
 * (ingested 500 per notification), then per partition claim → commitStep with the
 * conversation's timers → release, the partitions in parallel.
 */
export async function setPlannedTimers(store: Store, plan: TimerPlan, now: number): Promise<void> {
  const conversations = conversationsOf(plan);
  for (let c = 0; c < conversations; c += 500) {
    const items = [];
    for (let i = c; i < Math.min(c + 500, conversations); i++) {
      const event = { v: 1 as const, kind: 'start' as const, id: `start-${i}`, location };
      items.push({
        event: { ...event, phone: phoneOf(i), receivedAt: now, botId: 'b', input: {} },
      });
    }
    await store.ingest(`setup-${c}`, items, now);
  }
  const lanes = Array.from({ length: store.partitions }, async (_, partition) => {
    for (;;) {
      const claim = await store.claim('inbox', partition, 600_000, now);
      if (!claim) return;
      const c = Number(claim.phone.slice(4));
      const timers = { set: timersOf(plan, c), cancel: [] };
      const step = { eventId: `start-${c}`, expectedSeq: 0, record: null, outbound: [], timers };
      const result = await store.commitStep(claim, step, now);
      if (!result.ok) throw new Error(`setup commit of ${claim.phone} failed: ${result.reason}`);
      await store.release(claim, now);
    }
  });
  await Promise.all(lanes);
}

/** Reads every mailbox: each timer must be there exactly once. Returns each one's lateness (ms). */
export async function collectFired(store: Store, plan: TimerPlan): Promise<Float64Array> {
  const lateness = new Float64Array(plan.timers);
  const seen = new Set<string>();
  const conversations = conversationsOf(plan);
  for (let c = 0; c < conversations; c += 500) {
    const batch = Array.from({ length: Math.min(500, conversations - c) }, (_, i) =>
      store.pendingEvents({ location, phone: phoneOf(c + i) }),
    );
    for (const events of await Promise.all(batch)) {
      for (const event of events as TimerEvent[]) {
        if (event.kind !== 'timer') continue;
        if (seen.has(event.id)) throw new Error(`timer event ${event.id} is in a mailbox twice`);
        lateness[seen.size] = event.receivedAt - event.dueAt;
        seen.add(event.id);
      }
    }
  }
  if (seen.size !== plan.timers) {
    throw new Error(`${seen.size} timer events in the mailboxes, ${plan.timers} expected`);
  }
  return lateness;
}
