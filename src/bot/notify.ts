import { type EventObject, emit, type MachineContext } from 'xstate';
import { errorCodes, ReplyflowError } from '../errors.ts';
import { reservedEventNamespaces } from '../events/event-type-problem.ts';
import { builtInEventTypes } from '../events/outbound-event.ts';

/** The event `notify` emits; the engine queues it in the step's commit as an outbound event. */
export interface NotifyEmitted {
  type: 'replyflow.notify';
  eventType: string;
  payload: Record<string, unknown>;
}

export type NotifyPayload<TContext, TEvent> =
  | Record<string, unknown>
  | ((args: { context: TContext; event: TEvent }) => Record<string, unknown>);

/** A bot's own event type: lowercase words joined by dots, at least two (`appointment.confirmed`). */
const dottedName = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$/;

/**
 * An action that sends an event of the bot's own to the location's subscriptions (the
 * config's `events`). It is queued in the step's commit, so it is emitted exactly once per
 * step, and delivered after it, at least once with the same id, never on the conversation's
 * path: a slow receiver delays no SMS. The event carries the location, the bot and its
 * version, the phone (full and masked) and the time; `payload` is yours.
 *
 * @example
 * on: {
 *   'sms.reply': {
 *     guard: saidDate(),
 *     actions: notify('appointment.rescheduled', ({ event }) => ({ at: event.body })),
 *   },
 * }
 */
export function notify<
  TContext extends MachineContext,
  TExpressionEvent extends EventObject,
  TEvent extends EventObject = TExpressionEvent,
>(type: string, payload: NotifyPayload<TContext, TExpressionEvent> = {}) {
  checkEventType(type);
  return emit<TContext, TExpressionEvent, undefined, TEvent, NotifyEmitted>(
    ({ context, event }) => ({
      type: 'replyflow.notify',
      eventType: type,
      payload: typeof payload === 'function' ? payload({ context, event }) : payload,
    }),
  );
}

function checkEventType(type: string): void {
  if ((builtInEventTypes as readonly string[]).includes(type)) {
    throw new ReplyflowError(
      errorCodes.BOT_DEFINITION_INVALID,
      `notify('${type}'): '${type}' is an event replyflow emits itself; name your own, e.g. 'appointment.confirmed'`,
    );
  }
  if (
    typeof type === 'string' &&
    reservedEventNamespaces.some((namespace) => type.startsWith(namespace))
  ) {
    // A subscription could not name it in its types (they refuse conversation.* and result.*
    // that replyflow does not emit), and a receiver would take it for replyflow's own.
    throw new ReplyflowError(
      errorCodes.BOT_DEFINITION_INVALID,
      `notify('${type}'): conversation.* and result.* are replyflow's own events; name yours after your domain, e.g. 'appointment.confirmed'`,
    );
  }
  if (typeof type !== 'string' || !dottedName.test(type)) {
    throw new ReplyflowError(
      errorCodes.BOT_DEFINITION_INVALID,
      `notify('${String(type)}'): an event type is lowercase words joined by dots, e.g. 'appointment.confirmed'`,
    );
  }
}
