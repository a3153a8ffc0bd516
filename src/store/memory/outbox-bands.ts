import type { OutboundMessage } from '../records.ts';
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
