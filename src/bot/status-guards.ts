import type { BotEvent, SmsStatusEvent } from './bot-events.ts';

type GuardArgs = { event: BotEvent | { type: string } };

function isStatus(event: GuardArgs['event']): event is SmsStatusEvent {
  return event.type === 'sms.status';
}

/**
 * A guard: the message was delivered to the handset.
 *
 * @example
 * on: { 'sms.status': { guard: wasDelivered, actions: assign({ delivered: true }) } }
 */
export function wasDelivered({ event }: GuardArgs): boolean {
  return isStatus(event) && event.status === 'delivered';
}

/**
 * A guard factory: the message failed, for any reason or for the one given
 * (`invalid_phone_number`, `EXPIRED`, `insufficient_balance`, `send_failed`).
 *
 * @example
 * on: {
 *   'sms.status': [
 *     { guard: failedWith('EXPIRED'), actions: reply('Did you get our message? Reply YES to confirm.') },
 *     { guard: failedWith('invalid_phone_number'), target: 'unreachable' },
 *   ],
 * }
 */
export function failedWith(reason?: string): (args: GuardArgs) => boolean {
  const guard = ({ event }: GuardArgs) =>
    isStatus(event) &&
    event.status === 'errored' &&
    (reason === undefined || event.statusReason === reason);
  // The statecharts of the dev phone and the dashboard label the guard with its name.
  return Object.defineProperty(guard, 'name', {
    value: reason === undefined ? 'failedWith' : `failedWith ${reason}`,
  });
}
