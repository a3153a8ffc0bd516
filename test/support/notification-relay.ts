import { createServer, type Server } from 'node:http';

/** A notification the relay took from the service, as it came. */
export interface HeldNotification {
  body: string;
  /** The envelope, parsed: `{ id, type, data: [...] }`. */
  envelope: { id: string; type: string; data: Array<Record<string, unknown>> };
}

export interface NotificationRelay {
  /** `http://127.0.0.1:PORT/webhook`: register this at the service instead of replyflow's URL. */
  url: string;
  /** The notifications taken and not yet forwarded, oldest first, each once (by its id). */
  readonly held: readonly HeldNotification[];
  /**
   * Forwards the oldest `count` held notifications to replyflow, one after another, each
   * answered 2xx before the next goes (a 503 is tried again); resolves to how many went.
   */
  release(count: number): Promise<number>;
  close(): Promise<void>;
}

/**
 * Stands between the service and replyflow's webhook: takes every notification at once (2xx, so
 * the service is done with it) and holds it until the test releases it. It plays a service that
 * reports its sends late: a backlog it works through, or deliveries it retries after replyflow
 * was slow to answer. The test decides how late, on its own clock.
 */
export async function startNotificationRelay(target: string): Promise<NotificationRelay> {
  const held: HeldNotification[] = [];
  const seen = new Set<string>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      try {
        const envelope = JSON.parse(body) as HeldNotification['envelope'];
        // A notification the service sends again (its answer came too late: a busy process)
        // is the one already held, delivered once.
        if (!seen.has(envelope.id)) held.push({ body, envelope });
        seen.add(envelope.id);
        res.writeHead(200).end();
      } catch {
        res.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;

  const forward = async (notification: HeldNotification) => {
    for (let attempt = 1; ; attempt++) {
      const res = await fetch(target, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: notification.body,
      });
      await res.arrayBuffer();
      if (res.ok) return;
      if (res.status !== 503 || attempt >= 20) {
        throw new Error(
          `replyflow answered ${res.status} to notification ${notification.envelope.id}`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
    }
  };

  return {
    url: `http://127.0.0.1:${port}/webhook`,
    held,
    async release(count) {
      let sent = 0;
      while (sent < count && held.length > 0) {
        await forward(held[0]!);
        held.shift();
        sent++;
      }
      return sent;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
