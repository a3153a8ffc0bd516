import type { BotEvent, ConversationTrigger } from '../bot/bot-events.ts';
import type { MailboxEvent, ReplyEvent } from '../store/records.ts';

/** The message that started a conversation, as `conversation.start` carries it. */
export function triggerOf(event: ReplyEvent): ConversationTrigger {
  return {
    body: event.body,
    from: event.phone,
    receivedAt: new Date(event.receivedAt).toISOString(),
    originSmsId: event.originSmsId,
  };
}

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
      return {
        type: 'conversation.start',
        input: event.input,
        receivedAt: new Date(event.receivedAt).toISOString(),
      };
    case 'timer':
      return event.event;
    case 'contact':
      return event.ok
        ? { type: 'contact.updated', group: event.group }
        : { type: 'contact.failed', group: event.group, reason: event.reason };
  }
}
