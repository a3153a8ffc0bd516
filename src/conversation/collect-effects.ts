import type { EndEmitted } from '../bot/end-conversation.ts';
import type { NotifyEmitted } from '../bot/notify.ts';
import type { RecordEmitted } from '../bot/record.ts';
import type { ReplyEmitted } from '../bot/reply.ts';
import type { ContactEmitted, ContactUpdate } from '../bot/update-contact.ts';

/** What a step asks the world to do, read from the actions `transition()` returned as data. */
export interface StepEffects {
  replies: string[];
  /** `record()` fields, merged in order (a later key wins); empty when none. */
  recorded: Record<string, unknown>;
  /** `updateContact()` calls, in order; each becomes an outbox entry after the step's messages. */
  contacts: ContactUpdate[];
  /** `notify()` calls, in order: the bot's own outbound events (type, payload). */
  notified: { type: string; payload: Record<string, unknown> }[];
  /** Set when the bot called `endConversation()`. */
  endReason: string | undefined;
  /** Action types the engine does not run (custom side effects); logged once so authors notice. */
  ignored: string[];
  /** Delayed raises and cancels, in the order XState returned them; they become durable timers. */
  timers: TimerOp[];
}

export type TimerOp =
  | { op: 'set'; sendId: string; delay: number; event: { type: string } }
  | { op: 'cancel'; sendId: string };

interface ActionLike {
  type: string;
  params?: unknown;
}

/**
 * Turns XState's returned actions into effects. `emit`ted `replyflow.reply` / `replyflow.end`
 * become outbound messages and the end of the run. Built-in actions (`assign`, `raise`…) were
 * already applied by `transition()` itself; delayed raises and cancels (including the implicit
 * ones when a state with `after` is left) become durable timer operations.
 */
export function collectEffects(actions: readonly ActionLike[]): StepEffects {
  const effects: StepEffects = {
    replies: [],
    recorded: {},
    contacts: [],
    notified: [],
    endReason: undefined,
    ignored: [],
    timers: [],
  };
  for (const action of actions) {
    if (action.type === 'xstate.emit') {
      const emitted = (
        action.params as
          | {
              event?: ReplyEmitted | EndEmitted | RecordEmitted | ContactEmitted | NotifyEmitted;
            }
          | undefined
      )?.event;
      if (emitted?.type === 'replyflow.reply' && typeof emitted.text === 'string') {
        if (emitted.text.trim() !== '') effects.replies.push(emitted.text);
      } else if (emitted?.type === 'replyflow.end') {
        effects.endReason = emitted.reason;
      } else if (emitted?.type === 'replyflow.record') {
        Object.assign(effects.recorded, emitted.fields);
      } else if (emitted?.type === 'replyflow.contact') {
        effects.contacts.push({ group: emitted.group, fields: emitted.fields });
      } else if (emitted?.type === 'replyflow.notify') {
        effects.notified.push({ type: emitted.eventType, payload: emitted.payload });
      }
    } else if (action.type === 'xstate.raise') {
      const { id, delay, event } = (action.params ?? {}) as {
        id?: string;
        delay?: unknown;
        event?: { type: string };
      };
      // A raise without a delay was already applied by transition() itself.
      if (typeof delay === 'number' && event) {
        effects.timers.push({ op: 'set', sendId: id ?? event.type, delay, event });
      }
    } else if (action.type === 'xstate.cancel') {
      const { sendId } = (action.params ?? {}) as { sendId?: string };
      if (sendId) effects.timers.push({ op: 'cancel', sendId });
    } else if (!action.type.startsWith('xstate.')) {
      effects.ignored.push(action.type);
    }
  }
  return effects;
}
