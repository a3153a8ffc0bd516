import type { MailboxEvent, OutboundMessage } from '../records.ts';
import { storeLimits } from '../store-limits.ts';
import type { ReadyBands } from './memory-lease-queue.ts';
import { parse } from './memory-state.ts';

/**
 * The outbox's two bands of ready times (answers first), as `lib/bot-initiated-only.lua` tells
 * them apart: an outbox whose first 16 messages are all bot-initiated waits behind the others.
 */
export const outboxBands: ReadyBands = {
  botBandMs: storeLimits.botBandMs,
  botInitiatedOnly: (items) =>
    items.length > 0 &&
    items.slice(0, 16).every((json) => parse<OutboundMessage>(json)?.botInitiated === true),
};

/**
 * The inbox's two bands, as `lib/awaits-no-answer.lua` tells them apart: a mailbox with no
 * person's reply among its first 16 events (a campaign's or a timer's start, statuses) waits
 * behind those that have one, so bot work never holds up an answer.
 */
export const inboxBands: ReadyBands = {
  botBandMs: storeLimits.botBandMs,
  botInitiatedOnly: (items) =>
    items.length > 0 &&
    items.slice(0, 16).every((json) => parse<MailboxEvent>(json)?.kind !== 'reply'),
};
