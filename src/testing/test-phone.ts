import { resultOf } from '../conversation/result-of.ts';
import { statePath } from '../conversation/state-path.ts';
import type { MessagingClient } from '../provider/messaging-client.ts';
import type { ConversationResult } from '../store/records.ts';
import type { Store } from '../store/store.ts';

/** An SMS a bot sent to the phone, as the emulated service holds it. */
export interface TestMessage {
  /** The service's sms id. */
  id: string;
  body: string;
  status: 'pending' | 'sent' | 'delivered' | 'errored';
  /** `DELIVRD`, `EXPIRED`…; empty when there is none. */
  statusReason: string;
  /** When the service accepted it, on the harness's clock. */
  at: Date;
}

/**
 * A person's handset in the harness. Every method that acts waits until the engine is idle
 * before it resolves, so the bot's answers are there to read.
 */
export interface TestPhone {
  /** Digits with the country prefix (`33612345678`). */
  readonly number: string;
  /**
   * The person texts the short code. As on the real service, a text is a reply to the last
   * message from the short code that reached this phone. A phone no message has reached yet
   * (a first keyword, `JOIN`) first receives one opening SMS from the short code, sent by
   * the harness through the emulated service: it stands for the poster or campaign that gave
   * the person the number, it is not one of `messages()`, and no bot hears of it.
   */
  send(text: string): Promise<void>;
  /** The SMS the bots sent to this phone, oldest first (the harness's opening SMS left out). */
  messages(): Promise<TestMessage[]>;
  /** The last SMS a bot sent to this phone, or undefined. */
  lastMessage(): Promise<TestMessage | undefined>;
  /**
   * The state of the phone's conversation: a dotted path when nested (`'booking.date'`),
   * `'ended'` once it has ended (or errored), undefined when it never had one.
   */
  state(): Promise<string | undefined>;
  /** The machine's context (the last one saved, also after the end), or undefined. */
  context<T = Record<string, unknown>>(): Promise<T | undefined>;
  /**
   * The result of the phone's last conversation, as `replyflow results` lists it: bot and
   * version, start and end times (ms), end code, and the fields its bot recorded (`record`).
   */
  result(): Promise<ConversationResult | undefined>;
}

/** What a phone needs from its harness. */
export interface PhoneDeps {
  store: Store;
  location: string;
  emulatorUrl: string;
  client: MessagingClient;
  /** Ids of the opening SMS the harness sent (left out of `messages()`). */
  openers: Set<string>;
  waitUntilIdle(): Promise<void>;
}

/** What the harness texts a phone no SMS has reached yet (a poster, a campaign). */
export const OPENING_SMS = 'Text us at this number.';

export function createTestPhone(number: string, deps: PhoneDeps): TestPhone {
  const key = { location: deps.location, phone: number };
  const reply = async (text: string) =>
    fetch(`${deps.emulatorUrl}/_emulator/replies`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ from: number, body: text, location: deps.location }),
    });
  const phone: TestPhone = {
    number,
    async send(text) {
      await deps.waitUntilIdle();
      let answer = await reply(text);
      if (answer.status === 404) {
        await answer.arrayBuffer();
        const opener = await deps.client.sms.send({
          to: number,
          body: OPENING_SMS,
        });
        deps.openers.add(opener.id);
        await deps.waitUntilIdle();
        answer = await reply(text);
      }
      const body = (await answer.json()) as { notified?: boolean; reason?: string };
      if (answer.status !== 201 || !body.notified) {
        throw new Error(
          `the emulated service did not forward "${text}": ${body.reason ?? JSON.stringify(body)}`,
        );
      }
      await deps.waitUntilIdle();
    },
    async messages() {
      const response = await fetch(
        `${deps.emulatorUrl}/_emulator/messages?to=${number}&location=${deps.location}`,
      );
      const stored = (await response.json()) as Array<
        Omit<TestMessage, 'at'> & { createdAt: string }
      >;
      return stored
        .filter((sms) => !deps.openers.has(sms.id))
        .map((sms) => ({
          id: sms.id,
          body: sms.body,
          status: sms.status,
          statusReason: sms.statusReason,
          at: new Date(sms.createdAt),
        }));
    },
    async lastMessage() {
      return (await phone.messages()).at(-1);
    },
    async state() {
      const record = await deps.store.getConversation(key);
      if (!record) return undefined;
      if (record.status !== 'active') return 'ended';
      return statePath((record.snapshot as { value?: unknown } | null)?.value);
    },
    async context<T>() {
      const record = await deps.store.getConversation(key);
      return (record?.snapshot as { context?: T } | null)?.context;
    },
    async result() {
      const record = await deps.store.getConversation(key);
      return record ? resultOf(record) : undefined;
    },
  };
  return phone;
}
