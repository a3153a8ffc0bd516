import type { RunningDev } from '../app/start-dev.ts';
import { startConversation } from '../conversation/start-conversation.ts';
import { type NextFailureReason, nextFailureReasons } from '../emulator/next-failures.ts';
import { simulateReply } from '../emulator/simulate-reply.ts';
import type { ConversationRecord } from '../store/records.ts';

/** The reasons `/fail` can give the next delivery (the emulator's one-shot failures). */
export const failReasons = nextFailureReasons;
export type FailReason = NextFailureReason;

/**
 * One person's conversation with a bot, driven from the terminal: the bot is started, the
 * person's lines become replies through the emulator, and `settle()` waits until nothing is in
 * flight (mailbox, outbox, the emulator's deliveries), so each line answers what came before.
 */
export function createChatSession(dev: RunningDev, phone: string) {
  const emulator = dev.emulator!.context;
  const key = { location: dev.location, phone };

  async function busy(): Promise<boolean> {
    if (emulator.work.size > 0) return true;
    const [events, outbound] = await Promise.all([
      dev.store.pendingEvents(key),
      dev.store.pendingOutbound(key),
    ]);
    return events.length > 0 || outbound.length > 0;
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
        quiet = (await busy()) ? 0 : quiet + 1;
      }
    },

    advance(ms: number): void {
      dev.clock.advance(ms);
    },

    /** The next SMS to the phone fails with `reason`, and only that one. */
    fail(reason: FailReason): void {
      emulator.nextFailures.arm(phone, reason);
    },

    conversation(): Promise<ConversationRecord | null> {
      return dev.store.getConversation(key);
    },
  };
}

export type ChatSession = ReturnType<typeof createChatSession>;
