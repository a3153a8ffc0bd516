import { conversationId } from '../conversation-id.ts';
import { mergeSentRecord } from '../message-status.ts';
import {
  failedSmsId,
  type MessageRecord,
  type OutboundMessage,
  type StatusEvent,
} from '../records.ts';
import { storableJson } from '../storable-json.ts';
import type { OutboundMarks, Store } from '../store.ts';
import { storeLimits } from '../store-limits.ts';
import { type MemoryState, parse } from './memory-state.ts';
import { outboxBands } from './outbox-bands.ts';

/** A stashed status event with `runId` set to the record's (removed when it has none, as cjson does with nil). */
function withRunId(event: StatusEvent, record: MessageRecord): StatusEvent {
  const { runId: _, ...rest } = event;
  return record.runId === undefined ? rest : { ...rest, runId: record.runId };
}

type OutboxOperations = Pick<
  Store,
  'readOutbox' | 'renewOutbox' | 'recordSent' | 'deferOutbound' | 'failOutbound' | 'inDoubtHeardAt'
>;

/** The sender's operations on a claimed outbox, as the Redis scripts do them. */
export function memoryOutboxOperations(state: MemoryState): OutboxOperations {
  const { outbox, inbox } = state.queues;

  return {
    async readOutbox(claim, now, renewLeaseMs) {
      if (renewLeaseMs !== undefined) {
        // As read-outbox-7.lua: only under a claim that still holds the outbox, its lease renewed.
        const id = conversationId(claim);
        if (!outbox.holds(id, claim.token))
          return { message: null, sentSmsId: null, lostLock: true };
        outbox.extend(id, claim.partition, now, renewLeaseMs);
        // The head is being sent now: no longer in doubt.
        const view = state.outboxView(claim, now);
        const head = view.message;
        if (head && (head.inDoubtSince !== undefined || head.inDoubtUntil !== undefined)) {
          const { inDoubtSince: _since, inDoubtUntil: _until, ...sent } = head;
          outbox.replaceHead(id, storableJson(sent));
          return { ...view, message: sent };
        }
        return view;
      }
      return state.outboxView(claim, now);
    },

    async renewOutbox(claim, now, leaseMs) {
      const id = conversationId(claim);
      if (!outbox.holds(id, claim.token)) return { ok: false, reason: 'lost-lock' };
      outbox.extend(id, claim.partition, now, leaseMs);
      return { ok: true };
    },

    async inDoubtHeardAt(location) {
      return state.inDoubtHeard.get(location)?.at ?? null;
    },

    async recordSent(claim, messageId, record, now, counters) {
      const id = conversationId(claim);
      const guardKey = state.inPartition(claim.phone, messageId);
      // The first sms id wins, as with SET NX.
      if ((state.sent.get(guardKey)?.expiresAt ?? Number.NEGATIVE_INFINITY) <= now) {
        state.sent.set(guardKey, {
          smsId: record.smsId,
          expiresAt: now + storeLimits.sentGuardTtlMs,
        });
      }
      const key = state.inPartition(record.phone, record.smsId);
      const merged = mergeSentRecord(parse(state.messages.get(key)), record);
      state.messages.set(key, storableJson(merged));
      state.recordedSent.add(key);
      // The statuses that overtook this call go to the mailbox now, with the record's run.
      const early = state.earlyStatusesOf(key, now);
      state.earlyStatuses.delete(key);
      if (early.length > 0) {
        const events = early.map((json) => storableJson(withRunId(JSON.parse(json), merged)));
        inbox.append(id, claim.partition, events, now);
        state.listeners.emit('inbox', claim.partition);
      }
      // The send happened whoever holds the lock now, so its facts are kept and it is popped.
      const head = state.head<OutboundMessage>('outbox', claim);
      if (head?.id === messageId) {
        outbox.pop(id);
        state.changeCounters(claim.partition, counters);
        // As record-sent-13.lua: once per message, with its pop; a contact update is no SMS.
        if (!head.contact) {
          const entry = { at: now, body: head.body, smsId: record.smsId };
          state.addTranscriptEntry(id, { direction: 'out', ...entry });
        }
        if (head.loopGuard) state.countSend(id, head.loopGuard, now);
        // Recorded now: its body must no longer lead a takeover to this sms id.
        const bodies = state.unrecorded.get(id)?.bodies;
        if (bodies?.get(head.body) === record.smsId) bodies.delete(head.body);
      }
      if (!outbox.holds(id, claim.token)) return { ok: false, reason: 'lost-lock' };
      // Nothing left to send: released here, as the Redis script does.
      const nextOutbox = state.outboxView(claim, now);
      if (outbox.items(id).length === 0) {
        outbox.release(id, claim.partition, claim.token, now, now);
        return { ok: true, nextOutbox, released: true };
      }
      outbox.extend(id, claim.partition, now);
      return { ok: true, nextOutbox, released: false };
    },

    async deferOutbound(claim, messageId, attempts, notBefore, marks = {}) {
      const id = conversationId(claim);
      if (!outbox.holds(id, claim.token)) return { ok: false, reason: 'lost-lock' };
      const head = state.head<OutboundMessage>('outbox', claim);
      if (head?.id !== messageId) return { ok: false, reason: 'stale' };
      outbox.replaceHead(id, storableJson({ ...head, attempts, ...definedMarks(marks) }));
      // Ready again only at notBefore, so no listener is woken now; in the bot-initiated band
      // when it holds such messages only (defer-outbound-3.lua).
      const band = outboxBands.botInitiatedOnly(outbox.items(id)) ? outboxBands.botBandMs : 0;
      outbox.release(id, claim.partition, claim.token, band + notBefore, Number.NEGATIVE_INFINITY);
      return { ok: true };
    },

    async failOutbound(claim, messageId, event, now) {
      const id = conversationId(claim);
      if (!outbox.holds(id, claim.token)) return { ok: false, reason: 'lost-lock' };
      if (!state.headIs('outbox', claim, messageId)) return { ok: false, reason: 'stale' };
      const head = state.head<OutboundMessage>('outbox', claim);
      outbox.pop(id);
      // As fail-outbound-7.lua: an SMS gets a record of its own and a place in the transcript.
      if (head && !head.contact) {
        const smsId = failedSmsId(head.id);
        const key = state.inPartition(claim.phone, smsId);
        const { location, phone, runId, botId } = head;
        const record: MessageRecord = {
          ...{ v: 1, smsId, location, phone, status: 'errored', runId, botId, outboxId: head.id },
          statusReason: event.kind === 'status' ? event.statusReason : event.reason,
        };
        state.messages.set(key, storableJson(record));
        state.recordedSent.add(key);
        state.addTranscriptEntry(id, { direction: 'out', at: now, body: head.body, smsId });
      }
      inbox.append(id, claim.partition, [storableJson(event)], now);
      state.listeners.emit('inbox', claim.partition);
      outbox.extend(id, claim.partition, now);
      return { ok: true };
    },
  };
}

/** The marks that are set: an absent one leaves the message's field as it is. */
function definedMarks(marks: OutboundMarks): OutboundMarks {
  return Object.fromEntries(Object.entries(marks).filter(([, value]) => value !== undefined));
}
