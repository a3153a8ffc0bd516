import { type EventObject, emit, type MachineContext } from 'xstate';

/** The event `reply` emits; the engine turns each into an outbound SMS. */
export interface ReplyEmitted {
  type: 'replyflow.reply';
  text: string;
}

export type ReplyText<TContext, TEvent> =
  | string
  | ((args: { context: TContext; event: TEvent }) => string);

/**
 * An action that queues an SMS to the person of this conversation, sent from the short code so
 * they can answer. It is committed with the step: sent once, after the state is saved. A static
 * text stays on the action as `replyText` (null for a function) so `replyflow bots lint` and
 * the start-up table can check it; a computed text is checked when it is sent.
 *
 * @example
 * entry: reply('Your appointment is tomorrow at 10:00. Reply YES to confirm or NO to cancel.'),
 * on: {
 *   'sms.reply': { actions: reply(({ event }) => `You said: ${event.body}`) },
 * }
 */
export function reply<
  TContext extends MachineContext,
  TExpressionEvent extends EventObject,
  TEvent extends EventObject = TExpressionEvent,
>(text: ReplyText<TContext, TExpressionEvent>) {
  const action = emit<TContext, TExpressionEvent, undefined, TEvent, ReplyEmitted>(
    ({ context, event }) => ({
      type: 'replyflow.reply',
      text: typeof text === 'function' ? text({ context, event }) : text,
    }),
  );
  // The static text stays readable on the action, so the linter can check it when bots load.
  // Set, not Object.assign: a widened return type would stop `setup({ actions })` inferring events.
  (action as { replyText?: string | null }).replyText = typeof text === 'string' ? text : null;
  // The text (or the function that makes it) lives in a closure the bot's version cannot read:
  // keep it on the action, so an edited reply changes the content version (machineContentVersion).
  (action as { text?: unknown }).text = text;
  return action;
}
