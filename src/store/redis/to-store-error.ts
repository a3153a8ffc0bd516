import { StoreRefusedError, StoreUnavailableError } from '../store-errors.ts';

/**
 * Redis's error replies that say the server cannot take the call now, not that the call is
 * wrong: out of memory, loading, a read-only replica, a cluster or replication in trouble, a
 * script still running, a disk error that stops writes. Worth retrying later.
 */
const unavailablePrefixes = [
  'OOM',
  'LOADING',
  'READONLY',
  'MASTERDOWN',
  'CLUSTERDOWN',
  'TRYAGAIN',
  'BUSY',
  'NOREPLICAS',
  'MISCONF',
];

/** An error reply from Redis (it answered, refusing the call), not a lost connection. */
export const isReplyError = (error: unknown): error is Error =>
  error instanceof Error && error.name === 'ReplyError';

/**
 * Turns what ioredis rejects with into a store error that says what to check. A connection
 * failure (refused, closed, timed out, retries spent) or a reply that says Redis cannot take
 * the call now is `StoreUnavailableError` (503: retry later). Any other error reply (a script
 * error) is `StoreRefusedError`: the same call would fail again, so it must never look like an
 * outage (a notification answered 503 for ever).
 */
export function toStoreError(
  error: unknown,
  operation: string,
): StoreUnavailableError | StoreRefusedError {
  if (error instanceof StoreUnavailableError || error instanceof StoreRefusedError) return error;
  const detail = error instanceof Error ? error.message : String(error);
  if (!isReplyError(error)) {
    return new StoreUnavailableError(
      `Redis did not answer ${operation} (${detail}). Check that REDIS_URL (or REDIS_CLUSTER_NODES) points at a running Redis reachable from this host.`,
      { cause: error },
    );
  }
  if (unavailablePrefixes.some((prefix) => detail.startsWith(prefix))) {
    return new StoreUnavailableError(
      `Redis refused ${operation}: ${detail}. Check the Redis server (memory, replication role, logs).`,
      { cause: error },
    );
  }
  return new StoreRefusedError(
    `Redis refused ${operation}: ${detail}. This call will not succeed as it is: report it with this message.`,
    { cause: error },
  );
}
