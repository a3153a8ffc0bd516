import type { BotRegistry } from '../bot/bot-registry.ts';
import type { Bot } from '../bot/define-bot.ts';
import { normalizeKeyword } from '../bot/normalize-keyword.ts';
import type { ConversationRecord, MailboxEvent, MessageRecord } from '../store/records.ts';

/** Where an event goes. */
export type Route =
  | {
      kind: 'deliver';
      reason: 'origin' | 'active' | 'status' | 'timer' | 'contact';
      record: ConversationRecord;
    }
  | { kind: 'start'; reason: 'keyword' | 'fallback' | 'start'; bot: Bot; input: unknown }
  | { kind: 'drop'; reason: string };

export interface RouteInput {
  event: MailboxEvent;
  /** The phone's active run in this location, if any (already checked to be resumable). */
  active: ConversationRecord | null;
  /** For a reply: the message it answers; for a status: the message it is about. */
  message: MessageRecord | null;
  registry: BotRegistry;
}

/**
 * Routes an event, in this order (DESIGN §3):
 *  0. compliance keywords (STOP…) — the compliance step runs before this function and takes
 *     the events it handles; nothing here may outrank it;
 *  1. the conversation that sent `originSms.id`, if it is still active;
 *  2. the phone's active conversation in that location;
 *  3. a keyword trigger (first word, case and accents folded);
 *  4. the fallback bot.
 * With none of these the reply is recorded and nothing is sent.
 */
export function routeEvent({ event, active, message, registry }: RouteInput): Route {
  switch (event.kind) {
    case 'reply': {
      if (active) {
        const reason = message?.runId === active.runId ? 'origin' : 'active';
        return { kind: 'deliver', reason, record: active };
      }
      const keyword = normalizeKeyword(event.body);
      const bot = registry.byKeyword.get(keyword);
      if (bot) return { kind: 'start', reason: 'keyword', bot, input: { keyword } };
      if (registry.fallback)
        return { kind: 'start', reason: 'fallback', bot: registry.fallback, input: {} };
      return { kind: 'drop', reason: 'no active conversation, keyword or fallback bot' };
    }
    case 'status':
      if (active && (message?.runId ?? event.runId) === active.runId) {
        return { kind: 'deliver', reason: 'status', record: active };
      }
      return { kind: 'drop', reason: 'status of a message no active conversation sent' };
    case 'contact':
      if (active && active.runId === event.runId) {
        return { kind: 'deliver', reason: 'contact', record: active };
      }
      return { kind: 'drop', reason: 'contact update of a run no longer active' };
    case 'timer':
      // Only a timer the run still holds, for the time it was set: a cancelled or replaced one is dropped.
      if (
        active &&
        active.runId === event.runId &&
        active.timers?.[event.timerId] === event.dueAt
      ) {
        return { kind: 'deliver', reason: 'timer', record: active };
      }
      return { kind: 'drop', reason: 'timer no longer held by an active conversation' };
    case 'start': {
      if (active)
        return { kind: 'drop', reason: `conversation with '${active.botId}' already active` };
      const bot = registry.bots.get(event.botId);
      if (!bot) return { kind: 'drop', reason: `no bot '${event.botId}' is loaded` };
      return { kind: 'start', reason: 'start', bot, input: event.input };
    }
  }
}
