import { StoreUnavailableError } from '../store-errors.ts';

/**
 * Turns what ioredis rejects with into a `StoreUnavailableError` that says what to check.
 * A `ReplyError` is Redis answering with an error (out of memory, a read-only replica, a
 * script error); anything else is the connection (refused, closed, timed out, retries spent).
 */
export function toStoreError(error: unknown, operation: string): StoreUnavailableError {
  if (error instanceof StoreUnavailableError) return error;
  const detail = error instanceof Error ? error.message : String(error);
  const answered = error instanceof Error && error.name === 'ReplyError';
  const message = answered
    ? `Redis refused ${operation}: ${detail}. Check the Redis server (memory, replication role, logs).`
    : `Redis did not answer ${operation} (${detail}). Check that REDIS_URL (or REDIS_CLUSTER_NODES) points at a running Redis reachable from this host.`;
  return new StoreUnavailableError(message, { cause: error });
}
