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
 * sent (a DOUBLE with more than 2 decimals is rounded, with a warning). Its outcome reaches the
 * conversation that queued it, once: `contact.updated` when the service took it,
 * `contact.failed` (with `reason`) when it failed for good. A bot that must not say "done"
 * before it is done waits for one of them in a state of its own.
 *
 * @example
 * subscribing: {
 *   entry: updateContact(({ context }) => ({
 *     group: context.group,
 *     fields: { contactFirstName: context.name, contactSubscribed: true },
 *   })),
 *   on: {
 *     'contact.updated': { target: 'subscribed' },
 *     'contact.failed': { target: 'notSubscribed' },
 *   },
 * },
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
