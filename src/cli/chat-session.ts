import type { RunningDev } from '../app/start-dev.ts';
import { startConversation } from '../conversation/start-conversation.ts';
import type { RecipientOutcome } from '../emulator/index.ts';
import { simulateReply } from '../emulator/simulate-reply.ts';
import type { ConversationRecord } from '../store/records.ts';

/** The reasons `/fail` can give the next delivery, and how the emulator produces each. */
export const failReasons = {
  EXPIRED: 'expired',
  invalid_phone_number: 'invalid',
  insufficient_balance: 'balance',
} as const satisfies Record<string, RecipientOutcome | 'balance'>;
export type FailReason = keyof typeof failReasons;

/**
 * One person's conversation with a bot, driven from the terminal: the bot is started, the
 * person's lines become replies through the emulator, and `settle()` waits until nothing is in
 * flight (mailbox, outbox, the emulator's deliveries), so each line answers what came before.
 */
export function createChatSession(dev: RunningDev, phone: string) {
  const emulator = dev.emulator!.context;
  const key = { location: dev.location, phone };
  let failing: { reason: FailReason; after: number; balance?: number } | undefined;

  async function busy(): Promise<boolean> {
    if (emulator.work.size > 0) return true;
    const [events, outbound] = await Promise.all([
      dev.store.pendingEvents(key),
      dev.store.pendingOutbound(key),
    ]);
    return events.length > 0 || outbound.length > 0;
  }

  /** A scripted failure applies to one message: the first one that fails lifts it. */
  function liftFailure(): void {
    if (!failing) return;
    const failed = emulator.messages
      .list({ to: phone })
      .some((sms) => Date.parse(sms.createdAt) >= failing!.after && sms.status === 'errored');
    if (!failed) return;
    if (failing.reason === 'insufficient_balance')
      emulator.locations.get(dev.location).balance = failing.balance ?? 1000;
    else emulator.outcomes.delete(phone);
    failing = undefined;
  }

  return {
    start(botId: string, input: unknown): Promise<string> {
      return startConversation(dev.store, {
        location: dev.location,
        phone,
        botId,
        input,
        now: dev.clock.now(),
      });
    },

    /** The handset answers the last message it got from the short code. */
    send(body: string): { ok: true } | { ok: false; reason: string } {
      try {
        const result = simulateReply(
          { ...emulator, shortCode: emulator.config.shortCode },
          { from: phone, body, location: dev.location },
        );
        return result.notified ? { ok: true } : { ok: false, reason: result.reason };
      } catch (error) {
        return { ok: false, reason: (error as Error).message };
      }
    },

    /** Resolves once nothing is in flight, checked twice in a row (a step may be about to queue). */
    async settle(timeoutMs = 15_000): Promise<void> {
      const deadline = Date.now() + timeoutMs;
      let quiet = 0;
      while (quiet < 2 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 25));
        liftFailure();
        quiet = (await busy()) ? 0 : quiet + 1;
      }
    },

    advance(ms: number): void {
      dev.clock.advance(ms);
    },

    fail(reason: FailReason): void {
      failing = { reason, after: emulator.clock.now() };
      const how = failReasons[reason];
      if (how === 'balance') {
        const location = emulator.locations.get(dev.location);
        failing.balance = location.balance;
        location.balance = 0;
      } else emulator.outcomes.set(phone, how);
    },

    conversation(): Promise<ConversationRecord | null> {
      return dev.store.getConversation(key);
    },
  };
}

export type ChatSession = ReturnType<typeof createChatSession>;
