import type { EndEmitted } from '../bot/end-conversation.ts';
import type { ReplyEmitted } from '../bot/reply.ts';

/** What a step asks the world to do, read from the actions `transition()` returned as data. */
export interface StepEffects {
  replies: string[];
  /** Set when the bot called `endConversation()`. */
  endReason: string | undefined;
  /** Action types the engine does not run (custom side effects); logged once so authors notice. */
  ignored: string[];
}

interface ActionLike {
  type: string;
  params?: unknown;
}

/**
 * Turns XState's returned actions into effects. `emit`ted `replyflow.reply` / `replyflow.end`
 * become outbound messages and the end of the run. Built-in actions (`assign`, `raise`…) were
 * already applied by `transition()` itself. Delayed raises and cancels become timers in a
 * later step of the engine (durable timers); until then they are ignored here.
 */
export function collectEffects(actions: readonly ActionLike[]): StepEffects {
  const effects: StepEffects = { replies: [], endReason: undefined, ignored: [] };
  for (const action of actions) {
    if (action.type === 'xstate.emit') {
      const emitted = (action.params as { event?: ReplyEmitted | EndEmitted } | undefined)?.event;
      if (emitted?.type === 'replyflow.reply' && typeof emitted.text === 'string') {
        if (emitted.text.trim() !== '') effects.replies.push(emitted.text);
      } else if (emitted?.type === 'replyflow.end') {
        effects.endReason = emitted.reason;
      }
    } else if (!action.type.startsWith('xstate.')) {
      effects.ignored.push(action.type);
    }
  }
  return effects;
}
