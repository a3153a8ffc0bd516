import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One POST the receiver got. */
export interface ReceivedRequest {
  at: number;
  path: string;
  headers: IncomingMessage['headers'];
  body: unknown;
}

/**
 * How the receiver answers its n-th request (1-based): a status, optionally after a delay.
 * Default: 200 at once.
 */
export type Responder = (
  request: ReceivedRequest,
  count: number,
) => { status: number; delayMs?: number } | number;

export interface WebhookReceiver {
  url: string;
  received: ReceivedRequest[];
  close(): Promise<void>;
}

/**
 * A small webhook receiver on a random loopback port that records every request it gets, for
 * tests of anything that sends notifications (the emulator, the dev phone).
 */
export async function startWebhookReceiver(
  respond: Responder = () => 200,
): Promise<WebhookReceiver> {
  const received: ReceivedRequest[] = [];
  const pending = new Set<NodeJS.Timeout>();
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const request: ReceivedRequest = {
      at: Date.now(),
      path: req.url ?? '/',
      headers: req.headers,
      body: text ? JSON.parse(text) : undefined,
    };
    received.push(request);
    const answer = respond(request, received.length);
    const { status, delayMs = 0 } = typeof answer === 'number' ? { status: answer } : answer;
    const send = () => {
      if (!res.destroyed) res.writeHead(status, { 'content-type': 'application/json' }).end('{}');
    };
    if (delayMs <= 0) return send();
    const timer = setTimeout(() => {
      pending.delete(timer);
      send();
    }, delayMs);
    pending.add(timer);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of pending) clearTimeout(timer);
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
