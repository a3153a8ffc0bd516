import type { EventSubscription } from './outbound-event.ts';

/** True when `subscription` receives events of `type`: it lists the type, or lists none. */
export function subscriptionWants(subscription: EventSubscription, type: string): boolean {
  return subscription.types === undefined || subscription.types.includes(type);
}
