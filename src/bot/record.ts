import { type EventObject, emit, type MachineContext } from 'xstate';

/** The event `record` emits; the engine merges its fields into the conversation's result. */
export interface RecordEmitted {
  type: 'replyflow.record';
  fields: Record<string, unknown>;
}

export type RecordFields<TContext, TEvent> =
  | Record<string, unknown>
  | ((args: { context: TContext; event: TEvent }) => Record<string, unknown>);

/**
 * An action that stores values in this conversation's result (`replyflow results <bot>`). It is
 * committed with the step, so it is applied exactly once; a later `record` of the same key
 * replaces the value. The result keeps the location, phone, bot and version, start and end
 * times and end code too, and outlives the conversation.
 *
 * @example
 * on: {
 *   'sms.reply': {
 *     guard: saidNumber({ min: 0, max: 10 }),
 *     actions: record(({ event }) => ({ score: Number(event.body) })),
 *   },
 * }
 */
export function record<
  TContext extends MachineContext,
  TExpressionEvent extends EventObject,
  TEvent extends EventObject = TExpressionEvent,
>(fields: RecordFields<TContext, TExpressionEvent>) {
  return emit<TContext, TExpressionEvent, undefined, TEvent, RecordEmitted>(
    ({ context, event }) => ({
      type: 'replyflow.record',
      fields: typeof fields === 'function' ? fields({ context, event }) : fields,
    }),
  );
}
