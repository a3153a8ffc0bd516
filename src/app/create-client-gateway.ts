import { errorCodes, ReplyflowError } from '../errors.ts';
import type { SmsGateway } from '../outbox/sms-gateway.ts';
import type { MessagingClient } from '../provider/messaging-client.ts';
import type { ContactPayload } from '../provider/schemas/contact.ts';

/** Adapts the per-location messaging clients to the sender's port: SMS always from the short code, and contact updates. */
export function createClientGateway(clients: ReadonlyMap<string, MessagingClient>): SmsGateway {
  const clientOf = (location: string) => {
    const client = clients.get(location);
    if (!client) {
      throw new ReplyflowError(
        errorCodes.CONFIG_INVALID,
        `unknown location '${location}': add it to the REPLYFLOW_CONFIG file or set REPLYFLOW_LOCATION`,
      );
    }
    return client;
  };
  return {
    async send(location, message, options) {
      return clientOf(location).sms.send(
        { to: message.to, body: message.body, from: '' },
        { beforeRequest: options?.beforeRequest, ...(options?.bulk && { bulk: true }) },
      );
    },
    ping: (location) => clientOf(location).ping(),
    async updateContact(location, group, fields, options) {
      // A flow's DOUBLE values go as the campaigns would use them: rounded, with a warning.
      await clientOf(location).contacts.add(group, fields as ContactPayload, {
        roundDoubles: true,
        ...(options?.bulk && { bulk: true }),
      });
    },
  };
}
