import type { Bot } from '../bot/define-bot.ts';
import type { MailboxEvent } from '../store/records.ts';

/** Ends the engine decides on its own: a final state, expiry, a number that cannot receive SMS. */
export function implicitEnd(bot: Bot, event: MailboxEvent, final: boolean): string | undefined {
  if (final) return 'final';
  if (event.kind === 'timer' && event.event.type === 'conversation.expire') return 'expired';
  if (
    event.kind === 'status' &&
    event.status === 'errored' &&
    event.statusReason === 'invalid_phone_number' &&
    bot.endOnInvalidNumber !== false
  ) {
    return 'invalid_phone_number';
  }
  return undefined;
}
