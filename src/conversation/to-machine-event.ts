import type { BotEvent } from '../bot/bot-events.ts';
import type { MailboxEvent } from '../store/records.ts';

/** The event a bot's machine receives for a mailbox event. */
export function toMachineEvent(event: MailboxEvent): BotEvent | { type: string } {
  switch (event.kind) {
    case 'reply':
      return {
        type: 'sms.reply',
        body: event.body,
        from: event.phone,
        receivedAt: new Date(event.receivedAt).toISOString(),
        originSmsId: event.originSmsId,
      };
    case 'status':
      return {
        type: 'sms.status',
        status: event.status === 'pending' ? 'sent' : event.status,
        statusReason: event.statusReason,
        smsId: event.smsId,
      };
    case 'start':
      return { type: 'conversation.start', input: event.input };
    case 'timer':
      return event.event;
  }
}
