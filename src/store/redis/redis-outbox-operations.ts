import { statusFields } from '../message-status.ts';
import { type MessageRecord, type OutboundMessage, statusRank } from '../records.ts';
import { storableJson } from '../storable-json.ts';
import type { Claim, CounterChange, OutboxView, RecordSentResult, Store } from '../store.ts';
import { storeLimits } from '../store-limits.ts';
import { counterChangeArgs, counterChangesJson } from './counter-changes-json.ts';
import { messageBody, storedField } from './message-value.ts';
import { commitResultOf, jsonOrNull, outboxViewOf, recordSentResultOf } from './parse-reply.ts';
import { messageTtl, type RedisStoreContext, withStoreErrors } from './redis-store-context.ts';
import { sendChecks } from './send-checks.ts';
import { transcriptListKept } from './transcript-line-with.ts';
import { plainId, valueAfterSent } from './value-after-sent.ts';
import { builtOn } from './write-mark.ts';

type OutboxOperations = Pick<
  Store,
  'readOutbox' | 'renewOutbox' | 'recordSent' | 'deferOutbound' | 'failOutbound' | 'inDoubtHeardAt'
>;

/** The sender's operations on a claimed outbox, over the Lua scripts. */
export function redisOutboxOperations(context: RedisStoreContext): OutboxOperations {
  const { keys, scripts, values } = context;

  /**
   * A send recorded with the conversation's value built here (value-after-sent.ts) from the
   * value this process last read or wrote (its direct commit, its last recorded send), when it
   * is still the one on Redis and the send is of the usual kind: `record-sent-built-12.lua`
   * writes it whole. Undefined when it did not (nothing was written): the merging script
   * records the send.
   */
  const recordBuilt = async (
    claim: Claim,
    message: OutboundMessage | undefined,
    record: MessageRecord,
    now: number,
    counters: readonly CounterChange[] | undefined,
  ): Promise<RecordSentResult | undefined> => {
    const c = keys.conversation(claim);
    const known = values.get(c.id);
    if (known === undefined || !message || record.phone !== claim.phone) return undefined;
    const rank = statusRank[record.status];
    const json = messageBody({ ...record, v: undefined, location: undefined });
    const built = valueAfterSent(known, message, record.smsId, rank, json, now);
    if (!built) return undefined;
    const scriptKeys = [
      c.lock('outbox'),
      c.list('outbox'),
      c.record,
      c.transcript(),
      c.ready('outbox'),
      c.message(record.smsId),
      c.earlyStatuses(record.smsId),
      c.unrecorded,
      c.sends,
      c.countersPrefix,
      c.messagePrefix,
      c.suppressed,
    ];
    const args = [
      claim.token,
      `"id":${JSON.stringify(message.id)}`,
      builtOn(known),
      built.value,
      c.id,
      now,
      context.retention.conversationsMs,
      message.loopGuard?.max ?? '',
      message.loopGuard?.windowMs ?? '',
      messageTtl(context),
      transcriptListKept(),
      built.spilledMessages.length,
      ...built.spilledMessages.flat(),
      built.spilledTranscript.length,
      ...built.spilledTranscript,
      ...counterChangeArgs(counters),
    ];
    // What the next write builds on, from the moment it is sent: one sent while this call is
    // in flight runs after it.
    const mark = values.sent(c.id, built.value);
    let status: string;
    let next: string | undefined;
    try {
      [status, next] = (await withStoreErrors('recordSent', () =>
        scripts.run('record-sent-built', scriptKeys, args),
      )) as [string, string?];
    } catch (error) {
      values.settled(c.id, mark, false);
      throw error;
    }
    values.settled(c.id, mark, status === 'ok');
    if (status !== 'ok') return undefined;
    const nextMessage = jsonOrNull<OutboundMessage>(next);
    return {
      ok: true,
      nextOutbox: { message: nextMessage, sentSmsId: null },
      released: nextMessage === null,
    };
  };

  /**
   * The sender's last look in the usual case (`last-look-5.lua`): the claim still holds the
   * outbox and `message` is still its head, to be sent as it is; its lease renewed. Undefined
   * when the outbox must be read (`read-outbox-7.lua` drops, moves or clears what it must).
   */
  const lastLook = async (
    claim: Claim,
    message: OutboundMessage,
    now: number,
    leaseMs: number,
  ): Promise<OutboxView | undefined> => {
    // An id the JSON would escape is not found as it is: the full read looks at it.
    if (message.id === '' || !plainId(message.id)) return undefined;
    const c = keys.conversation(claim);
    const guard = message.loopGuard;
    const checks = sendChecks(message);
    const reply = await withStoreErrors('readOutbox', () =>
      scripts.run(
        'last-look',
        [c.lock('outbox'), c.list('outbox'), c.suppressed, c.sends, c.ready('outbox')],
        [
          claim.token,
          `"id":"${message.id}"`,
          now + leaseMs,
          c.id,
          checks,
          guard ? guard.max - 1 : '',
          guard ? now - guard.windowMs : '',
        ],
      ),
    );
    if (reply === 'lost-lock') return { message: null, sentSmsId: null, lostLock: true };
    return reply === 'ok' ? { message, sentSmsId: null } : undefined;
  };

  return {
    async readOutbox(claim, now, renewLeaseMs, expected) {
      const c = keys.conversation(claim);
      if (renewLeaseMs !== undefined && expected) {
        const look = await lastLook(claim, expected, now, renewLeaseMs);
        if (look) return look;
      }
      const scriptKeys = [
        c.list('outbox'),
        c.record,
        c.suppressed,
        c.sends,
        c.messagePrefix,
        c.lock('outbox'),
        c.ready('outbox'),
      ];
      const args = [
        now,
        messageTtl(context),
        storeLimits.dropsPerView,
        storeLimits.transcriptEntries,
        renewLeaseMs === undefined ? '' : claim.token,
        renewLeaseMs ?? 0,
        c.id,
      ];
      const reply = await withStoreErrors('readOutbox', () =>
        scripts.run('read-outbox', scriptKeys, args),
      );
      if (reply === 'lost-lock') return { message: null, sentSmsId: null, lostLock: true };
      const [head, smsId, dropped] = reply as unknown[];
      // A message dropped went to the conversation's transcript: its value moved.
      if (dropped) values.delete(c.id);
      return outboxViewOf([head, smsId, '', dropped]);
    },

    async renewOutbox(claim, now, leaseMs) {
      const c = keys.conversation(claim);
      const reply = await withStoreErrors('renewOutbox', () =>
        scripts.run(
          'renew-outbox',
          [c.lock('outbox'), c.ready('outbox')],
          [claim.token, now + leaseMs, c.id],
        ),
      );
      return commitResultOf(reply);
    },

    async inDoubtHeardAt(location) {
      const at = await withStoreErrors('inDoubtHeardAt', () =>
        context.redis.get(keys.inDoubtHeard(location)),
      );
      return at === null ? null : Number(at);
    },

    async recordSent(claim, messageId, record, now, counters, message) {
      const c = keys.conversation(claim);
      const sms = keys.conversation(record);
      const sent = message?.id === messageId ? message : undefined;
      const built = await recordBuilt(claim, sent, record, now, counters);
      if (built) return built;
      values.delete(c.id);
      const scriptKeys = [
        c.lock('outbox'),
        c.list('outbox'),
        c.record,
        sms.message(record.smsId),
        c.ready('outbox'),
        sms.earlyStatuses(record.smsId),
        c.list('inbox'),
        c.ready('inbox'),
        c.unrecorded,
        c.suppressed,
        c.sends,
        c.messagePrefix,
        c.countersPrefix,
      ];
      const args = [
        claim.token,
        messageId,
        record.smsId,
        // As the conversation's messages line holds it: the script adds it there as it is.
        messageBody({ ...record, v: undefined, location: undefined }),
        statusRank[record.status],
        storeLimits.messagesInRecord,
        storableJson(statusFields.map((field) => storedField[field])),
        now,
        c.id,
        keys.readyChannel,
        c.readyMessage('inbox'),
        messageTtl(context),
        storeLimits.dropsPerView,
        messageTtl(context),
        counterChangesJson(counters),
        context.retention.conversationsMs,
        storeLimits.transcriptEntries,
      ];
      const reply = await withStoreErrors('recordSent', () =>
        scripts.run('record-sent', scriptKeys, args),
      );
      return recordSentResultOf(reply);
    },

    async deferOutbound(claim, messageId, attempts, notBefore, marks = {}) {
      const c = keys.conversation(claim);
      const scriptKeys = [c.lock('outbox'), c.list('outbox'), c.ready('outbox')];
      const args = [
        claim.token,
        messageId,
        attempts,
        notBefore,
        c.id,
        marks.inDoubtUntil ?? '',
        marks.inDoubtSince ?? '',
        marks.holdUntil ?? '',
        storeLimits.botBandMs,
      ];
      const reply = await withStoreErrors('deferOutbound', () =>
        scripts.run('defer-outbound', scriptKeys, args),
      );
      return commitResultOf(reply);
    },

    async failOutbound(claim, messageId, event, now) {
      const c = keys.conversation(claim);
      const scriptKeys = [
        c.lock('outbox'),
        c.list('outbox'),
        c.list('inbox'),
        c.ready('inbox'),
        c.ready('outbox'),
        c.record,
        c.messagePrefix,
      ];
      const args = [
        claim.token,
        messageId,
        storableJson(event),
        now,
        c.id,
        keys.readyChannel,
        c.readyMessage('inbox'),
        messageTtl(context),
        storeLimits.transcriptEntries,
      ];
      const reply = await withStoreErrors('failOutbound', () =>
        scripts.run('fail-outbound', scriptKeys, args),
      );
      return commitResultOf(reply);
    },
  };
}
