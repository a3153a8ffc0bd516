import type { OutboundMessage } from '../records.ts';

/**
 * The checks lib/outbox-head.lua makes on a message before it may be sent, as the built scripts
 * take them (`commit-direct-11.lua`'s hand-over, `last-look-5.lua`): `''` none (an opt-out
 * confirmation, a contact update, or no message), `'s'` the suppression, `'sg'` the
 * suppression and the message's loop guard (the help text is exempt from the guard).
 */
export function sendChecks(message: OutboundMessage | undefined): '' | 's' | 'sg' {
  if (!message || message.compliance === 'opt-out' || message.contact) return '';
  return message.loopGuard && message.compliance !== 'help' ? 'sg' : 's';
}
