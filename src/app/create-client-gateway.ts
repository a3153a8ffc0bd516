import { errorCodes, ReplyflowError } from '../errors.ts';
import type { SmsGateway } from '../outbox/sms-gateway.ts';
import type { MessagingClient } from '../provider/messaging-client.ts';

/** Adapts the per-location messaging clients to the sender's port: always from the short code. */
export function createClientGateway(clients: ReadonlyMap<string, MessagingClient>): SmsGateway {
  return {
    async send(location, message) {
      const client = clients.get(location);
      if (!client) {
        throw new ReplyflowError(
          errorCodes.CONFIG_INVALID,
          `unknown location '${location}': add it to the REPLYFLOW_CONFIG file or set REPLYFLOW_LOCATION`,
        );
      }
      return client.sms.send({ to: message.to, body: message.body, from: '' });
    },
  };
}
