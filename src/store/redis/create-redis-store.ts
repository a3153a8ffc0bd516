import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { checkStepCommit } from '../check-step-commit.ts';
import { parseConversationId } from '../conversation-id.ts';
import { groupByPartition } from '../group-by-partition.ts';
import { statusFields, statusRecordOf } from '../message-status.ts';
import { partitionOf } from '../partition-of.ts';
import { reportAsWarning } from '../ready-listeners.ts';
import { type ConversationKey, type DeadLetter, statusRank } from '../records.ts';
import type { Claim, Store } from '../store.ts';
import { storeLimits } from '../store-limits.ts';
import { storeKeys } from './keys.ts';
import { commitResultOf, inboxViewOf, jsonOrNull } from './parse-reply.ts';
import { createReadySubscription } from './ready-subscription.ts';
import { defineStoreScripts } from './store-scripts.ts';
import { toStoreError } from './to-store-error.ts';

export interface RedisStoreOptions {
  /** The connection to use, made and closed by the caller (see `redisOptionsForStore`). */
  redis: Redis;
  /** A connection for `onReady`'s subscription; by default `redis.duplicate()`, made on first use. */
  subscriber?: Redis;
  /** Prepended to every key; one Redis can hold several stores under different prefixes. */
  prefix?: string;
  /** Partitions of the shared structures; fixed for the life of the data. */
  partitions?: number;
  /** Makes lock tokens. */
  newToken?: () => string;
  /** Receives what has no caller to reject with: subscription failures, listener errors. */
  onError?: (error: unknown) => void;
}

const seconds = (ms: number) => Math.ceil(ms / 1_000);

/**
 * The production store: the port over one Redis, every multi-key change in one Lua script
 * touching one hash slot (see `keys.ts` for the layout and `scripts/` for the scripts).
 * Failures of the connection or of the server reject with `StoreUnavailableError`.
 */
export function createRedisStore(options: RedisStoreOptions): Store {
  const { redis } = options;
  const partitions = options.partitions ?? 16;
  const newToken = options.newToken ?? randomUUID;
  const keys = storeKeys(options.prefix ?? 'rf:', partitions);
  const scripts = defineStoreScripts(redis);
  const ready = createReadySubscription({
    redis,
    subscriber: options.subscriber,
    channel: keys.readyChannel,
    onError: options.onError ?? reportAsWarning,
  });
  const attempt = async <T>(operation: string, run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (error) {
      throw toStoreError(error, operation);
    }
  };
  const lists = async (key: string) =>
    (await redis.lrange(key, 0, -1)).map((json) => JSON.parse(json));

  const store: Store = {
    partitions,
    partitionOf: (phone) => partitionOf(phone, partitions),

    async ingest(notificationId, items, now) {
      if (items.length === 0) return { duplicate: false, pushed: 0 };
      const pipeline = redis.pipeline();
      for (const [partition, group] of groupByPartition(items, store.partitionOf)) {
        const p = keys.partition(partition);
        const args: (string | number)[] = [
          now,
          seconds(storeLimits.seenTtlMs),
          keys.readyChannel,
          p.readyMessage('inbox'),
        ];
        for (const item of group) {
          const update = item.status ? statusRecordOf({ ...item, status: item.status }) : null;
          args.push(
            keys.conversation(item.event).id,
            JSON.stringify(item.event),
            update?.smsId ?? '',
            update ? statusRank[update.status] : 0,
            update ? JSON.stringify(update) : '',
          );
        }
        const scriptKeys = [
          p.seen(notificationId),
          p.ready('inbox'),
          p.listPrefix('inbox'),
          p.messagePrefix,
        ];
        scripts.queue(pipeline, 'ingest', scriptKeys, args);
      }
      const replies = await attempt('ingest', async () => {
        const results = (await pipeline.exec()) ?? [];
        const failed = results.find(([error]) => error);
        if (failed) throw failed[0];
        return results.map(([, reply]) => reply as [number, number]);
      });
      return {
        duplicate: replies.every(([duplicate]) => duplicate === 1),
        pushed: replies.reduce((sum, [, pushed]) => sum + pushed, 0),
      };
    },

    async claim(queue, partition, leaseMs, now) {
      if (!Number.isInteger(leaseMs) || leaseMs <= 0)
        throw new RangeError(`lease ${leaseMs} ms must be a positive integer`);
      const p = keys.partition(partition);
      const token = newToken();
      const id = await attempt('claim', () =>
        scripts.run(
          'claim',
          [p.ready(queue), p.lockPrefix(queue), p.listPrefix(queue)],
          [now, leaseMs, token],
        ),
      );
      if (typeof id !== 'string' || id === '') return null;
      return { queue, partition, token, ...parseConversationId(id) };
    },

    async release(claim, now, notBefore) {
      const c = keys.conversation(claim);
      const readyAt = Math.max(now, notBefore ?? now);
      const args = [
        claim.token,
        c.id,
        readyAt,
        now,
        keys.readyChannel,
        c.readyMessage(claim.queue),
      ];
      await attempt('release', () =>
        scripts.run(
          'release',
          [c.lock(claim.queue), c.list(claim.queue), c.ready(claim.queue)],
          args,
        ),
      );
    },

    async readInbox(claim) {
      const c = keys.conversation(claim);
      const reply = await attempt('readInbox', () =>
        scripts.run('read-inbox', [c.record, c.list('inbox'), c.messagePrefix], []),
      );
      return inboxViewOf(reply as unknown[]);
    },

    async commitStep(claim, step, now) {
      checkStepCommit(claim, step);
      const c = keys.conversation(claim);
      const scriptKeys = [
        c.lock('inbox'),
        c.list('inbox'),
        c.record,
        c.applied,
        c.ready('inbox'),
        c.list('outbox'),
        c.ready('outbox'),
        c.messagePrefix,
      ];
      const args = [
        claim.token,
        step.eventId,
        step.expectedSeq,
        step.record ? JSON.stringify(step.record) : '',
        step.record?.seq ?? 0,
        now,
        storeLimits.appliedLogCap,
        c.id,
        keys.readyChannel,
        c.readyMessage('outbox'),
        ...step.outbound.map((message) => JSON.stringify(message)),
      ];
      const reply = (await attempt('commitStep', () =>
        scripts.run('commit-step', scriptKeys, args),
      )) as unknown[];
      const [status, ...view] = reply;
      if (status === 'lost-lock' || status === 'stale') return { ok: false, reason: status };
      return { ok: true, next: inboxViewOf(view) };
    },

    async readOutbox(claim) {
      const c = keys.conversation(claim);
      const [message, smsId] = (await attempt('readOutbox', () =>
        scripts.run('read-outbox', [c.list('outbox'), c.sentPrefix], []),
      )) as unknown[];
      return {
        message: jsonOrNull(message),
        sentSmsId: typeof smsId === 'string' && smsId !== '' ? smsId : null,
      };
    },

    async recordSent(claim, messageId, record, now) {
      const c = keys.conversation(claim);
      const scriptKeys = [
        c.lock('outbox'),
        c.list('outbox'),
        c.sent(messageId),
        keys.conversation(record).message(record.smsId),
        c.ready('outbox'),
      ];
      const args = [
        claim.token,
        messageId,
        record.smsId,
        JSON.stringify(record),
        statusRank[record.status],
        seconds(storeLimits.sentGuardTtlMs),
        JSON.stringify(statusFields),
        now,
        c.id,
      ];
      return commitResultOf(
        await attempt('recordSent', () => scripts.run('record-sent', scriptKeys, args)),
      );
    },

    async deferOutbound(claim, messageId, attempts, notBefore) {
      const c = keys.conversation(claim);
      const scriptKeys = [c.lock('outbox'), c.list('outbox'), c.ready('outbox')];
      const args = [claim.token, messageId, attempts, notBefore, c.id];
      return commitResultOf(
        await attempt('deferOutbound', () => scripts.run('defer-outbound', scriptKeys, args)),
      );
    },

    async failOutbound(claim, messageId, statusEvent, now) {
      const c = keys.conversation(claim);
      const scriptKeys = [
        c.lock('outbox'),
        c.list('outbox'),
        c.list('inbox'),
        c.ready('inbox'),
        c.ready('outbox'),
      ];
      const args = [
        claim.token,
        messageId,
        JSON.stringify(statusEvent),
        now,
        c.id,
        keys.readyChannel,
        c.readyMessage('inbox'),
      ];
      return commitResultOf(
        await attempt('failOutbound', () => scripts.run('fail-outbound', scriptKeys, args)),
      );
    },

    onReady: (listener) => ready.add(listener),

    async getConversation(key) {
      const record = keys.conversation(key).record;
      return jsonOrNull(await attempt('getConversation', () => redis.hget(record, 'json')));
    },
    async getMessage(phone, smsId) {
      const message = keys.conversation({ location: '_', phone }).message(smsId);
      return jsonOrNull(await attempt('getMessage', () => redis.hget(message, 'json')));
    },
    async listApplied(key) {
      const applied = keys.conversation(key).applied;
      return attempt('listApplied', () => redis.lrange(applied, 0, -1));
    },
    async pendingEvents(key: ConversationKey) {
      const list = keys.conversation(key).list('inbox');
      return attempt('pendingEvents', () => lists(list));
    },
    async pendingOutbound(key: ConversationKey) {
      const list = keys.conversation(key).list('outbox');
      return attempt('pendingOutbound', () => lists(list));
    },

    async pushDeadLetter(letter) {
      const json = JSON.stringify(letter);
      await attempt('pushDeadLetter', async () => {
        const results = await redis
          .multi()
          .lpush(keys.deadLetters, json)
          .ltrim(keys.deadLetters, 0, storeLimits.deadLetterCap - 1)
          .exec();
        const failed = results?.find(([error]) => error);
        if (failed) throw failed[0];
      });
    },
    async listDeadLetters(limit = storeLimits.deadLetterCap) {
      const letters = await attempt('listDeadLetters', () =>
        redis.lrange(keys.deadLetters, 0, limit - 1),
      );
      return letters.map((json) => JSON.parse(json) as DeadLetter);
    },

    async close() {
      await ready.close();
    },
  };
  return store;
}

export { redisOptionsForStore } from './redis-options-for-store.ts';
export type { Claim };
