import { maskPhone } from '../observability/mask-phone.ts';
import type { Store } from '../store/store.ts';

/** What the harness looks at to know that nothing moves any more. */
export interface IdleProbe {
  store: Store;
  location: string;
  /** The phones the harness has touched (the only ones a bot can be busy with). */
  phones: () => Iterable<string>;
  /** Base URL of the emulator (`http://127.0.0.1:PORT`), for its control API. */
  emulatorUrl: string;
  /** Give up after this many ms. */
  timeoutMs: number;
  /** The harness's clock: a message held for the quiet hours past it waits for the clock. */
  now: () => number;
}

interface Reading {
  /** What is still to do; empty when idle. */
  busy: string[];
  /** Changes whenever work moves: the emulator's messages and statuses, each conversation's seq and applied events. */
  signature: string;
}

/**
 * Resolves once the engine is idle: every mailbox and outbox of the harness's phones is empty
 * (an outbox keeps its message until the service's sms id is recorded, so a send in flight
 * counts, but not one held for the quiet hours past the clock), and the emulator has no pending work (no status change to come, no webhook request
 * on its way). Work moves from one of these places to the next (emulator → mailbox → outbox →
 * emulator), so one pass could miss a message in transit: a pass counts only when the
 * signature of progress is the same before and after it, and two such passes in a row are
 * needed. Polls every millisecond or two; it never waits for a fixed time.
 */
export async function waitUntilIdle(probe: IdleProbe): Promise<void> {
  const deadline = Date.now() + probe.timeoutMs;
  let calm = 0;
  let last: Reading | undefined;
  for (;;) {
    const before = await signature(probe);
    const busy = await busyWith(probe);
    const after = await signature(probe);
    last = { busy, signature: after };
    calm = busy.length === 0 && before === after ? calm + 1 : 0;
    if (calm >= 2) return;
    if (Date.now() > deadline) {
      throw new Error(
        `the engine did not become idle within ${probe.timeoutMs} ms; still busy with: ${last.busy.join('; ') || 'work moving between the emulator and the store'}. A send deferred after a failure waits for the clock: advance it.`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

async function busyWith(probe: IdleProbe): Promise<string[]> {
  const busy: string[] = [];
  const pending = (await getJson(`${probe.emulatorUrl}/_emulator/pending-work`)) as {
    count: number;
  };
  if (pending.count > 0) busy.push(`${pending.count} emulator task(s)`);
  for (const phone of probe.phones()) {
    const key = { location: probe.location, phone };
    const events = await probe.store.pendingEvents(key);
    const outbound = await probe.store.pendingOutbound(key);
    if (events.length > 0) busy.push(`${events.length} event(s) for ${maskPhone(phone)}`);
    // Held for the quiet hours, the head (and what queues behind it) waits for the clock.
    const held = (outbound[0]?.holdUntil ?? 0) > probe.now();
    if (outbound.length > 0 && !held) {
      busy.push(`${outbound.length} SMS to send to ${maskPhone(phone)}`);
    }
  }
  return busy;
}

async function signature(probe: IdleProbe): Promise<string> {
  // One call for every message of the location: the emulator's side of the progress.
  const messages = (await getJson(
    `${probe.emulatorUrl}/_emulator/messages?location=${probe.location}`,
  )) as { id: string; status: string }[];
  const parts: unknown[] = [messages.map((m) => `${m.id}:${m.status}`)];
  for (const phone of probe.phones()) {
    const key = { location: probe.location, phone };
    const record = await probe.store.getConversation(key);
    const applied = await probe.store.listApplied(key);
    parts.push(record?.seq ?? 0, applied.length, applied.at(-1));
  }
  return JSON.stringify(parts);
}

async function getJson(url: string): Promise<unknown> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`GET ${url} answered ${response.status}`);
  return response.json();
}
