import { randomUUID } from 'node:crypto';
import type { EventSubscription, OutboundEvent } from '../events/outbound-event.ts';
import { subscriptionWants } from '../events/subscription-wants.ts';
import { maskPhone } from '../observability/mask-phone.ts';

/**
 * The `optout` or `optin` outbound event (issue 24) of an operator's change to the list (an
 * import, the admin API, `replyflow suppressions remove`): no bot and no run sent it, so
 * `bot`, `botVersion` and `runId` are empty; `payload.source` says where it came from. Its id is
 * new (`evt_optout_<uuid>`): the store queues it only when the entry is added or removed, so a
 * repeated import sends nothing again.
 */
export function suppressionEvent(
  type: 'optout' | 'optin',
  location: string,
  phone: string,
  now: number,
  payload: Record<string, unknown>,
): OutboundEvent {
  return {
    id: `evt_${type}_${randomUUID()}`,
    type,
    timestamp: new Date(now).toISOString(),
    data: {
      location,
      bot: '',
      botVersion: '',
      runId: '',
      phone,
      maskedPhone: maskPhone(phone),
      payload,
    },
  };
}

/** True when one of the location's subscriptions wants events of `type`. */
export function wantsEvents(
  subscriptions: readonly EventSubscription[] | undefined,
  type: 'optout' | 'optin',
): boolean {
  return (subscriptions ?? []).some((subscription) => subscriptionWants(subscription, type));
}
