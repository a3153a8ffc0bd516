import { createServer, type IncomingMessage, type RequestListener, type Server } from 'node:http';
import type { Socket } from 'node:net';

/**
 * The limits that keep slow clients from holding connections: a request's headers must arrive
 * within `headersTimeout` and the whole request within `requestTimeout`; an idle keep-alive
 * connection closes after `keepAliveTimeout`. Node checks the first two every
 * `connectionsCheckingInterval` (30 s by default, far too slow), so a slow-loris connection is
 * closed within headersTimeout + that interval.
 */
export interface HttpLimits {
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
  checkIntervalMs: number;
  /** A long body (`allowLongBody`) may stall this long at most. */
  longBodyIdleMs: number;
}

/** The limits of every replyflow server. */
export const httpLimits: Readonly<HttpLimits> = {
  headersTimeoutMs: 5_000,
  requestTimeoutMs: 8_000,
  keepAliveTimeoutMs: 5_000,
  checkIntervalMs: 1_000,
  longBodyIdleMs: 30_000,
};

/** The sockets whose request now arriving is a long body an admin route is reading. */
const longBodies = new WeakSet<Socket>();

/**
 * Lets this request's body take longer than `requestTimeoutMs`: an admin upload (a campaign's
 * recipients) is read at the pace of the store it is written to, and a million rows take more
 * than 8 s. Call it only once the request is authenticated: the slow-client limits still hold
 * for everyone else, and this body is still cut when no byte of it arrives for
 * `longBodyIdleMs`. Lasts until the body has arrived.
 */
export function allowLongBody(req: IncomingMessage, idleMs: number = httpLimits.longBodyIdleMs) {
  const { socket } = req;
  if (req.complete) return;
  longBodies.add(socket);
  req.setTimeout(idleMs, () => socket.destroy());
  const done = () => {
    longBodies.delete(socket);
    if (!socket.destroyed) socket.setTimeout(0);
  };
  req.once('end', done);
  req.once('close', done);
}

/** An HTTP server for `handler` with `limits` (`httpLimits` by default) applied. */
export function createHardenedServer(
  handler: RequestListener,
  limits: Readonly<Omit<HttpLimits, 'longBodyIdleMs'>> = httpLimits,
): Server {
  const server = createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      connectionsCheckingInterval: limits.checkIntervalMs,
    },
    handler,
  );
  // Node answers a request timeout with 408 and closes the socket unless a 'clientError'
  // listener handles it; a listener would have to redo Node's answers to every other client
  // error, so a long body's timeout is taken in front of the event instead. Node checks a
  // request's deadline once: past it, the body is only bounded by its idle time.
  const emit = server.emit.bind(server) as (event: string, ...args: unknown[]) => boolean;
  server.emit = ((event: string, ...args: unknown[]) => {
    const [error, socket] = args as [NodeJS.ErrnoException | undefined, Socket | undefined];
    if (
      event === 'clientError' &&
      error?.code === 'ERR_HTTP_REQUEST_TIMEOUT' &&
      socket !== undefined &&
      longBodies.has(socket)
    ) {
      return true;
    }
    return emit(event, ...args);
  }) as Server['emit'];
  return server;
}
