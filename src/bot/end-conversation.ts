import { type EventObject, emit, type MachineContext } from 'xstate';

/** The event `endConversation` emits. */
export interface EndEmitted {
  type: 'replyflow.end';
  reason: string;
}

/**
 * An action that ends this conversation once the step is committed. The next message from the
 * person is routed afresh (keyword trigger, then fallback bot). Reaching a `final` state ends
 * the conversation too.
 *
 * @example
 * on: {
 *   'sms.reply': [
 *     { guard: ({ event }) => /^no\b/i.test(event.body), actions: [reply('Cancelled.'), endConversation('declined')] },
 *   ],
 * }
 */
export function endConversation<
  TContext extends MachineContext,
  TExpressionEvent extends EventObject,
  TEvent extends EventObject = TExpressionEvent,
>(reason = 'endConversation') {
  return emit<TContext, TExpressionEvent, undefined, TEvent, EndEmitted>({
    type: 'replyflow.end',
    reason,
  });
}
