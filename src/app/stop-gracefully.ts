import type { Server } from 'node:http';
import type { Logger } from '../observability/logger.ts';
import type { Store } from '../store/store.ts';
import { stopWithin } from './stop-within.ts';

export interface StoppingParts {
  /** REPLYFLOW_STOP_TIMEOUT in milliseconds. */
  timeoutMs: number;
  logger: Logger;
  /** The worker, the sender and the scheduler that run here. */
  consumers: Array<{ stop(): Promise<void> } | undefined>;
  servers: Array<Server | undefined>;
  /** The store and its connection, when this process opened them. */
  store:
    | { store: Store; redis: { quit(): Promise<unknown>; disconnect(): void } | undefined }
    | undefined;
  /** The messaging clients this process made. */
  clients: Array<{ close(): Promise<void> }>;
}

/** The part of the stop timeout kept back for the exit: a quarter, at most 2 s. */
export function exitReserveMs(timeoutMs: number): number {
  return Math.min(2_000, timeoutMs / 4);
}

/**
 * The stop, once the webhook and /readyz answer 503: the steps and sends in flight finish and
 * every claim is released, the requests in flight are answered and the servers close, then the
 * store, its connection and the clients. The phases share the timeout, less a part kept back (a
 * quarter, at most 2 s) so that the process, however loaded its machine, has exited when the
 * timeout ends. Never rejects: a hung Redis cannot turn a stop into a crash.
 */
export async function stopGracefully(parts: StoppingParts): Promise<void> {
  const { timeoutMs, logger } = parts;
  const within = stopWithin(timeoutMs - exitReserveMs(timeoutMs), logger);
  await within('finishing the steps and sends in flight', () =>
    Promise.all(parts.consumers.map((consumer) => consumer?.stop())),
  );
  const servers = parts.servers.filter((server): server is Server => server !== undefined);
  await Promise.all(
    servers.map((server) => within('answering the requests in flight', () => closeServer(server))),
  );
  for (const server of servers) server.closeAllConnections();
  if (parts.store) {
    const { store, redis } = parts.store;
    await within('closing the store', () => store.close());
    // A Redis that is down cannot take the QUIT (the connection refuses calls then): it is let
    // go of below, as one that hung the QUIT is. Nothing is left to write.
    await within('closing the Redis connection', async () => {
      await redis?.quit().catch(() => undefined);
    });
    redis?.disconnect();
  }
  await within('closing the messaging clients', () =>
    Promise.all(parts.clients.map((client) => client.close())),
  );
}

function closeServer(server: Server): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  return closed;
}
