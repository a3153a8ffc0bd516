import { type EventObject, emit, type MachineContext } from 'xstate';

/** What `updateContact` adds or updates: a group, and the contact's fields and custom columns. */
export interface ContactUpdate {
  /** The id of a group from `GET /groups`. */
  group: number;
  /**
   * Fixed fields (`contactFirstName`, `contactSubscribed`…) and custom columns by their numeric
   * id (`'12': 7.5`). The phone number is filled in from the conversation when absent.
   */
  fields: Record<string, unknown>;
}

/** The event `updateContact` emits; the engine queues it with the step's messages. */
export interface ContactEmitted extends ContactUpdate {
  type: 'replyflow.contact';
}

/**
 * An action that adds or updates the person's contact in a group (`POST
 * /groups/{group}/contacts`). It is queued with the step and sent after it, like a message:
 * retried on transient failures, checked against the account's custom columns before it is
 * sent (a DOUBLE with more than 2 decimals is rounded, with a warning), and a refusal reaches
 * the bot as an `sms.status` with `statusReason: 'send_failed'`.
 *
 * @example
 * actions: updateContact(({ context }) => ({
 *   group: 12,
 *   fields: { contactFirstName: context.name, contactSubscribed: true },
 * })),
 */
export function updateContact<
  TContext extends MachineContext,
  TExpressionEvent extends EventObject,
  TEvent extends EventObject = TExpressionEvent,
>(
  update: ContactUpdate | ((args: { context: TContext; event: TExpressionEvent }) => ContactUpdate),
) {
  return emit<TContext, TExpressionEvent, undefined, TEvent, ContactEmitted>(
    ({ context, event }) => ({
      type: 'replyflow.contact',
      ...(typeof update === 'function' ? update({ context, event }) : update),
    }),
  );
}
