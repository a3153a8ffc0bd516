import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { newEventSecret } from '../../src/events/event-secret.ts';
import type { EventSubscription, OutboundEvent } from '../../src/events/outbound-event.ts';
import { verifyWebhook } from '../../src/events/verify-webhook.ts';

/**
 * The event a receiver's request carries, verified; undefined, answered 401, when it is not
 * signed with `secret`. Tests share the machine's loopback ports, and a sender of another
 * test (a service emulator still retrying a webhook, say) may reach a port this receiver took
 * after it: such a request is refused, as a real receiver refuses it, not thrown from a
 * request handler, where it would crash the run.
 */
export function signedEvent(
  secret: string,
  req: IncomingMessage,
  body: string | Buffer,
  res: ServerResponse,
): OutboundEvent | undefined {
  try {
    return verifyWebhook(secret, req.headers as Record<string, string>, body);
  } catch {
    res.writeHead(401).end();
    return undefined;
  }
}

/**
 * A receiver of outbound events on loopback, with a secret of its own: it verifies each
 * signature, answers `status()` and keeps the events it accepted (a 2xx), in order. The caller
 * closes it (`close`, in its cleanup).
 */
export async function eventReceiver(
  status: () => number = () => 204,
  allowPrivateAddresses = true,
) {
  const secret = newEventSecret();
  const accepted: OutboundEvent[] = [];
  let requests = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const event = signedEvent(secret, req, Buffer.concat(chunks), res);
      if (!event) return;
      requests += 1;
      const answer = status();
      if (answer < 300) accepted.push(event);
      res.writeHead(answer).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const subscription: EventSubscription = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    secret,
    ...(allowPrivateAddresses && { allowPrivateAddresses: true }),
  };
  return {
    subscription,
    accepted,
    requests: () => requests,
    async close(): Promise<void> {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
