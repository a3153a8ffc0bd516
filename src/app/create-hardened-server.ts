import { createServer, type RequestListener, type Server } from 'node:http';

/**
 * The limits that keep slow clients from holding connections: a request's headers must arrive
 * within `headersTimeout` and the whole request within `requestTimeout`; an idle keep-alive
 * connection closes after `keepAliveTimeout`. Node checks the first two every
 * `connectionsCheckingInterval` (30 s by default, far too slow), so a slow-loris connection is
 * closed within headersTimeout + that interval.
 */
export const httpLimits = {
  headersTimeoutMs: 5_000,
  requestTimeoutMs: 8_000,
  keepAliveTimeoutMs: 5_000,
  checkIntervalMs: 1_000,
} as const;

/** An HTTP server for `handler` with `httpLimits` applied. */
export function createHardenedServer(handler: RequestListener): Server {
  const server = createServer(
    {
      headersTimeout: httpLimits.headersTimeoutMs,
      requestTimeout: httpLimits.requestTimeoutMs,
      keepAliveTimeout: httpLimits.keepAliveTimeoutMs,
      connectionsCheckingInterval: httpLimits.checkIntervalMs,
    },
    handler,
  );
  return server;
}
