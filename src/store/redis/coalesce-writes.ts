import type { Redis } from 'ioredis';
import { isCluster, type RedisConnection } from './redis-store-context.ts';

/**
 * Makes the commands written to `redis` during the current turn of the event loop go out in one
 * socket write. The returned function corks the connection's socket, if it is not corked
 * already, and uncorks it on `setImmediate`, which runs once the loop has handled every socket
 * that was ready together: under load, the ingests of the webhook requests read in one poll,
 * the commits of the lanes their replies woke and the sends recorded meanwhile share one
 * `writev` instead of paying a syscall each (and Redis one read and one reply write for them
 * all). An idle process loses nothing: with one request ready, the immediate runs as soon as
 * its callback and the promise reactions it started are done. `process.nextTick` (the first
 * version) batched only the calls of one callback: 1.3 times fewer turns/s and 1.5 times more
 * Redis CPU per turn in the reply-loop bench (docs/benchmarks.md).
 *
 * On a Cluster each master has its own socket: all the masters' sockets that are ready are
 * corked together, so the calls of one tick leave in one write per master.
 *
 * Unlike ioredis's `enableAutoPipelining`, this changes nothing but when the bytes leave:
 * commands are written in the order they were issued, several batches may be in flight at
 * once, and a connection that is not ready is left alone (ioredis queues offline commands
 * itself, and its timeouts apply as before).
 *
 * @example
 * const coalesce = coalesceWrites(redis);
 * coalesce();
 * await redis.get('a'); // written with whatever else this tick sends
 */
export function coalesceWrites(redis: RedisConnection): () => void {
  let corked: Array<NonNullable<Redis['stream']>> = [];
  let pending = false;
  const uncork = () => {
    const streams = corked;
    corked = [];
    pending = false;
    for (const stream of streams) stream.uncork();
  };
  const cork = (node: Redis) => {
    const stream = node.stream;
    if (node.status !== 'ready' || !stream?.writable) return;
    stream.cork();
    corked.push(stream);
  };
  return () => {
    if (pending || redis.status !== 'ready') return;
    if (isCluster(redis)) for (const node of redis.nodes('master')) cork(node);
    else cork(redis);
    if (corked.length === 0) return;
    pending = true;
    setImmediate(uncork);
  };
}
