import { Pool } from 'undici';
import type { StoredSms } from '../../src/emulator/index.ts';
import type { Store } from '../../src/store/store.ts';
import { location } from './reply-loop.ts';
import { waitFor } from './wait-for.ts';

/** One handset's side of a conversation with the echo bot (`test/fixtures/bots/echo-bot.ts`). */
export interface EchoConversation {
  phone: string;
  /** What the handset texts, in order; the first, `ECHO …`, starts the bot by its keyword. */
  replies: string[];
  /** What the bot answers, in order: the greeting, then `#n: <reply n>` for each reply. */
  answers: string[];
}

/**
 * `count` conversations of `1 + followUps` replies each, on French mobile numbers from
 * `firstPhone` on. Every body names its phone and turn, so a duplicate or a misrouted answer
 * shows up as such.
 */
export function echoConversations(
  count: number,
  followUps: number,
  firstPhone: number,
): EchoConversation[] {
  return Array.from({ length: count }, (_, i) => {
    const phone = String(firstPhone + i);
    const replies = [
      `ECHO from ${phone}`,
      ...Array.from({ length: followUps }, (_, t) => `turn ${t + 1} of ${phone}`),
    ];
    const answers = [
      'Echo bot here. Say anything.',
      ...replies.map((body, n) => `#${n + 1}: ${body}`),
    ];
    return { phone, replies, answers };
  });
}

/** A reply notification as the service sends it: recognised by `originSms`, not by `type`. */
export function replyEnvelope(id: string, phone: string, body: string) {
  return {
    id,
    webhookId: 'wh-load',
    type: 'sms.status',
    data: [{ originSms: { id: `origin-of-${id}` }, body, from: phone, to: '38200' }],
  };
}

/** The notification id of a conversation's reply `turn`; its mailbox event id is `${id}:0`. */
export function replyId(prefix: string, phone: string, turn: number): string {
  return `${prefix}-${phone}-${turn}`;
}

/**
 * Posts reply `turn` of every conversation to replyflow's webhook, `concurrency` at a time,
 * and fails unless each one is answered 200 (durable in the store). Over an undici pool rather
 * than `fetch`, which costs this process (also the webhook's and the emulator's) twice the CPU.
 */
export async function postTurn(
  webhookUrl: string,
  conversations: EchoConversation[],
  turn: number,
  idPrefix: string,
  concurrency = 16,
): Promise<void> {
  const url = new URL(webhookUrl);
  const pool = new Pool(url.origin, { connections: concurrency });
  let next = 0;
  const lane = async () => {
    while (next < conversations.length) {
      const { phone, replies } = conversations[next++]!;
      const body = replies[turn];
      if (body === undefined) continue;
      const id = replyId(idPrefix, phone, turn);
      const json = JSON.stringify(replyEnvelope(id, phone, body));
      const { statusCode, text } = await postWithRetry(pool, url.pathname, json);
      if (statusCode !== 200) throw new Error(`notification ${id} answered ${statusCode}: ${text}`);
    }
  };
  try {
    await Promise.all(Array.from({ length: concurrency }, lane));
  } finally {
    await pool.close();
  }
}

/**
 * One POST, sent again when the connection fails before an answer, or the answer is 503 (as the
 * service redelivers a notification it got no 2xx for; replyflow dedupes by notification id).
 * Under heavy load a keep-alive connection can be reset by the server just as a request goes
 * out, and a store call can time out (503 "store unavailable, retry later").
 */
async function postWithRetry(
  pool: Pool,
  path: string,
  body: string,
): Promise<{ statusCode: number; text: string }> {
  for (let attempt = 1; ; attempt++) {
    try {
      const res = await pool.request({
        method: 'POST',
        path,
        headers: { 'content-type': 'application/json' },
        body,
      });
      const answer = { statusCode: res.statusCode, text: await res.body.text() };
      if (answer.statusCode !== 503 || attempt >= 10) return answer;
    } catch (error) {
      if (attempt >= 10) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
  }
}

/** Every SMS the emulator accepted, by recipient, oldest first. */
export async function sentByPhone(emulatorUrl: string): Promise<Map<string, StoredSms[]>> {
  const res = await fetch(`${emulatorUrl}/_emulator/messages?location=${location}`);
  const byPhone = new Map<string, StoredSms[]>();
  for (const sms of (await res.json()) as StoredSms[]) {
    const list = byPhone.get(sms.to) ?? [];
    list.push(sms);
    byPhone.set(sms.to, list);
  }
  return byPhone;
}

/** SMS the emulator has processed so far, read from the location's balance (every answer of
 * the echo bot is one part at the emulator's default 0.05): a cheap poll, where listing
 * thousands of messages is not. */
export async function processedCount(emulatorUrl: string): Promise<number> {
  const res = await fetch(`${emulatorUrl}/_emulator/locations/${location}/balance`);
  const { balance } = (await res.json()) as { balance: number };
  return Math.round((1_000 - balance) / 0.05);
}

/**
 * What keeps the run from being over, empty once every conversation's answers all reached the
 * emulator and nothing is left in any mailbox or outbox (so no late duplicate and no unapplied
 * event can still come). Use it with `waitUntilSettled`.
 */
export async function unsettled(
  store: Store,
  emulatorUrl: string,
  conversations: EchoConversation[],
  { quick = true } = {},
): Promise<string[]> {
  const expected = conversations.reduce((n, c) => n + c.answers.length, 0);
  const processed = await processedCount(emulatorUrl);
  // While too few SMS went out, skip the costly listing (quick) unless asked why.
  if (quick && processed < expected) {
    return [`the emulator processed ${processed} of ${expected} answers`];
  }
  const sent = await sentByPhone(emulatorUrl);
  const left: string[] = [];
  for (const { phone, answers } of conversations) {
    const bodies = new Set(sent.get(phone)?.map((sms) => sms.body));
    const missing = answers.filter((body) => !bodies.has(body));
    if (missing.length > 0) left.push(`${phone}: never got ${JSON.stringify(missing)}`);
  }
  if (left.length > 0) return left;
  await Promise.all(
    conversations.map(async ({ phone }) => {
      const key = { location, phone };
      const [events, outbound] = await Promise.all([
        store.pendingEvents(key),
        store.pendingOutbound(key),
      ]);
      if (events.length > 0) left.push(`${phone}: ${events.length} event(s) left in the mailbox`);
      if (outbound.length > 0)
        left.push(`${phone}: ${outbound.length} message(s) left in the outbox`);
    }),
  );
  return left;
}

/** Polls `unsettled` until it is empty or `timeout` passes; resolves to what was left (at most 20). */
export async function waitUntilSettled(
  store: Store,
  emulatorUrl: string,
  conversations: EchoConversation[],
  timeout: number,
): Promise<string[]> {
  let left: string[] = [];
  await waitFor(
    async () => {
      left = await unsettled(store, emulatorUrl, conversations);
      return left.length === 0;
    },
    { timeout, interval: 100 },
  ).catch(async () => {
    left = await unsettled(store, emulatorUrl, conversations, { quick: false });
  });
  return left.slice(0, 20);
}

/** Collapses runs of equal neighbours: a re-sent message sits right after its first copy. */
export function withoutRepeats(bodies: string[]): string[] {
  return bodies.filter((body, i) => i === 0 || bodies[i - 1] !== body);
}

/** The echo bot's context, read from the conversation's persisted snapshot. */
export interface EchoContext {
  seen: string[];
  statuses: string[];
}

export function echoContextOf(snapshot: unknown): EchoContext | undefined {
  return (snapshot as { context?: EchoContext } | null)?.context;
}
