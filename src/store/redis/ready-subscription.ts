import { ReadyListeners } from '../ready-listeners.ts';
import type { QueueName } from '../store.ts';
import { isCluster, type RedisConnection } from './redis-store-context.ts';
import { toStoreError } from './to-store-error.ts';

export interface ReadySubscriptionOptions {
  /** The connection the store sends commands on; duplicated for pub/sub when `subscriber` is absent. */
  redis: RedisConnection;
  subscriber: RedisConnection | undefined;
  channel: string;
  /** The store's partition count: every partition is announced once the subscription is active. */
  partitions: number;
  onError: (error: unknown) => void;
}

/**
 * The store's `onReady`: one subscription to the ready channel, made on the first listener.
 * A subscriber connection the store made itself is closed with the store; a given one is only
 * unsubscribed, its owner closes it. Notifications are hints (consumers also sweep), so a failed
 * subscription is reported to `onError` (once until it succeeds) and asked again when its
 * connection is next ready, or a second later.
 *
 * On a Cluster the channel is an ordinary (not sharded) one: Redis Cluster forwards a PUBLISH,
 * from a script on any master too, to every node, and ioredis subscribes on one node of its
 * choice (`cluster.duplicate()` makes the subscriber a Cluster of its own).
 *
 * Messages published while the subscription is not active (before the first `SUBSCRIBE` is
 * answered, or while the subscriber reconnects) are lost. Consumers sleep until they hear of
 * work, so once it is active (again) every partition of both queues is announced: each
 * consumer looks everywhere once, instead of leaving what it missed to its slow safety sweep.
 */
export function createReadySubscription(options: ReadySubscriptionOptions) {
  const listeners = new ReadyListeners(options.onError);
  let connection: RedisConnection | undefined;
  let subscribed: Promise<unknown> | undefined;

  const timerListeners = new Set<(partition: number, dueAt: number) => void>();
  const campaignListeners = new Set<(partition: number, dueAt: number) => void>();
  const eventListeners = new Set<(partition: number) => void>();
  const onMessage = (channel: string, message: string) => {
    if (channel !== options.channel) return;
    const [queue, partition, dueAt] = message.split(':');
    if ((queue === 'inbox' || queue === 'outbox') && partition !== undefined) {
      listeners.emit(queue satisfies QueueName, Number(partition));
    } else if (queue === 'events' && partition !== undefined) {
      for (const listener of eventListeners) {
        try {
          listener(Number(partition));
        } catch (error) {
          options.onError(error);
        }
      }
    } else if (
      (queue === 'timers' || queue === 'campaigns') &&
      partition !== undefined &&
      dueAt !== undefined
    ) {
      for (const listener of queue === 'timers' ? timerListeners : campaignListeners) {
        try {
          listener(Number(partition), Number(dueAt));
        } catch (error) {
          options.onError(error);
        }
      }
    }
  };

  const announceAll = () => {
    for (const queue of ['inbox', 'outbox'] as const) {
      for (let partition = 0; partition < options.partitions; partition++) {
        listeners.emit(queue, partition);
      }
    }
  };
  // ioredis subscribes again by itself after a reconnect, as it says `ready`; asking once more
  // (a no-op for Redis) tells when that is answered.
  let connectedOnce = false;
  // The connection's failures reach onError as the store's other calls fail: StoreUnavailableError.
  const onFailure = (error: unknown) =>
    options.onError(toStoreError(error, 'the ready subscription'));
  const onReconnected = () => {
    if (!connection || closed) return;
    // A first SUBSCRIBE that failed (Redis not answering yet) is asked again once it answers.
    if (!connectedOnce) {
      if (!subscribed) subscribe();
      return;
    }
    connection.subscribe(options.channel).then(announceAll, onFailure);
  };
  let closed = false;
  let failing = false;
  let retry: NodeJS.Timeout | undefined;

  const subscribe = () => {
    if (!connection) {
      connection = options.subscriber ?? duplicate(options.redis);
      if (!options.subscriber) {
        // ioredis emits an error per reconnect attempt: report one per outage.
        let down = false;
        connection.on('error', (error: unknown) => {
          if (!down) onFailure(error);
          down = true;
        });
        connection.on('ready', () => {
          down = false;
        });
      }
      connection.on('message', onMessage);
      connection.on('ready', onReconnected);
    }
    subscribed = connection.subscribe(options.channel).then(
      () => {
        connectedOnce = true;
        failing = false;
        announceAll();
      },
      (error: unknown) => {
        subscribed = undefined;
        // Reported once until it succeeds: the retries below fail as often as Redis is away.
        if (!failing) onFailure(error);
        failing = true;
        // Failed before it was ever active: asked again on the connection's next `ready`, or
        // in a second should none come (a connection that stayed up while SUBSCRIBE failed).
        if (!closed && !retry) {
          retry = setTimeout(() => {
            retry = undefined;
            if (!closed && !subscribed) subscribe();
          }, 1_000);
          retry.unref();
        }
      },
    );
  };

  return {
    add(listener: (queue: QueueName, partition: number) => void): () => void {
      if (!subscribed) subscribe();
      return listeners.add(listener);
    },
    /** Hears "timers:<partition>:<due>" (commit-step-17.lua arms a timer entry earlier). */
    addTimerListener(listener: (partition: number, dueAt: number) => void): () => void {
      if (!subscribed) subscribe();
      timerListeners.add(listener);
      return () => timerListeners.delete(listener);
    },
    /** Hears "campaigns:<partition>:<due>" (a campaign's earliest recipient moved earlier). */
    addCampaignListener(listener: (partition: number, dueAt: number) => void): () => void {
      if (!subscribed) subscribe();
      campaignListeners.add(listener);
      return () => campaignListeners.delete(listener);
    },
    /** Hears "events:<partition>" (`announceEvents`: a call queued outbound events there). */
    addEventsListener(listener: (partition: number) => void): () => void {
      if (!subscribed) subscribe();
      eventListeners.add(listener);
      return () => eventListeners.delete(listener);
    },
    async close(): Promise<void> {
      closed = true;
      clearTimeout(retry);
      listeners.clear();
      eventListeners.clear();
      timerListeners.clear();
      campaignListeners.clear();
      if (!connection) return;
      connection.off('message', onMessage);
      connection.off('ready', onReconnected);
      if (options.subscriber) {
        await connection.unsubscribe(options.channel).catch(options.onError);
      } else {
        connection.disconnect();
      }
    },
  };
}

/**
 * A connection of its own for the subscription, with the offline queue on: its `SUBSCRIBE`
 * waits for it to connect, even when it is made while the store's connection, down, has its
 * queue off (`connectRedis`, `connectRedisCluster`).
 */
function duplicate(redis: RedisConnection): RedisConnection {
  return isCluster(redis)
    ? redis.duplicate([], { enableOfflineQueue: true })
    : redis.duplicate({ enableOfflineQueue: true });
}
