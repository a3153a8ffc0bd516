import { ReadyListeners } from '../ready-listeners.ts';
import type { QueueName } from '../store.ts';
import { isCluster, type RedisConnection } from './redis-store-context.ts';

export interface ReadySubscriptionOptions {
  /** The connection the store sends commands on; duplicated for pub/sub when `subscriber` is absent. */
  redis: RedisConnection;
  subscriber: RedisConnection | undefined;
  channel: string;
  onError: (error: unknown) => void;
}

/**
 * The store's `onReady`: one subscription to the ready channel, made on the first listener.
 * A subscriber connection the store made itself is closed with the store; a given one is only
 * unsubscribed, its owner closes it. Notifications are hints (workers also poll), so a failed
 * subscription is reported to `onError` and retried on the next `onReady` call.
 *
 * On a Cluster the channel is an ordinary (not sharded) one: Redis Cluster forwards a PUBLISH,
 * from a script on any master too, to every node, and ioredis subscribes on one node of its
 * choice (`cluster.duplicate()` makes the subscriber a Cluster of its own).
 */
export function createReadySubscription(options: ReadySubscriptionOptions) {
  const listeners = new ReadyListeners(options.onError);
  let connection: RedisConnection | undefined;
  let subscribed: Promise<unknown> | undefined;

  const onMessage = (channel: string, message: string) => {
    if (channel !== options.channel) return;
    const [queue, partition] = message.split(':');
    if ((queue === 'inbox' || queue === 'outbox') && partition !== undefined) {
      listeners.emit(queue satisfies QueueName, Number(partition));
    }
  };

  const subscribe = () => {
    if (!connection) {
      connection = options.subscriber ?? duplicate(options.redis);
      if (!options.subscriber) {
        // ioredis emits an error per reconnect attempt: report one per outage.
        let down = false;
        connection.on('error', (error: unknown) => {
          if (!down) options.onError(error);
          down = true;
        });
        connection.on('ready', () => {
          down = false;
        });
      }
      connection.on('message', onMessage);
    }
    subscribed = connection.subscribe(options.channel).catch((error: unknown) => {
      subscribed = undefined;
      options.onError(error);
    });
  };

  return {
    add(listener: (queue: QueueName, partition: number) => void): () => void {
      if (!subscribed) subscribe();
      return listeners.add(listener);
    },
    async close(): Promise<void> {
      listeners.clear();
      if (!connection) return;
      connection.off('message', onMessage);
      if (options.subscriber) {
        await connection.unsubscribe(options.channel).catch(options.onError);
      } else {
        connection.disconnect();
      }
    },
  };
}

function duplicate(redis: RedisConnection): RedisConnection {
  return isCluster(redis) ? redis.duplicate() : redis.duplicate();
}
