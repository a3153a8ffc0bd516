import type { Logger } from '../observability/logger.ts';
import { notificationSchema } from '../provider/schemas/notification.ts';
import type { Clock } from '../scheduler/clock.ts';
import type { HandOff } from '../store/create-queue-consumer.ts';
import { jsonInputProblem } from '../store/json-input-problem.ts';
import type { ReplyEvent, StatusEvent } from '../store/records.ts';
import type { IngestItem, Store } from '../store/store.ts';
import { StoreRefusedError, StoreUnavailableError } from '../store/store-errors.ts';
import { storeOutage } from '../store/store-outage.ts';
import { classifyItems, describe } from './classify-items.ts';
import { deadLetterOf } from './dead-letter-of.ts';

export interface NotificationDeps {
  store: Store;
  clock: Clock;
  logger: Logger;
  /** Country for a reply's national-form `from` (`06…`), per location name (its `defaultCountry`). */
  defaultCountries?: ReadonlyMap<string, string>;
  /**
   * The worker of this process (`Worker.handOff`): while it has room, the ingest claims the
   * conversations it makes ready and hands them over, so the worker starts without a claim.
   */
  inboxHandOff?: InboxHandOff;
  /**
   * The opt-out keyword a reply's text is whatever conversation it is in (one no bot claims),
   * or undefined: such a phone is suppressed before the 200 (the keyword as the reason), or
   * the answer is 503, so nothing but the confirmation goes to it once the service holds its
   * STOP as delivered.
   */
  optsOut?: (location: string, body: string) => string | undefined;
  /**
   * The worker of this process (`Worker.direct`): a notification of one reply is stepped and
   * committed in the request itself when its conversation is idle (docs/architecture.md, "The
   * direct turn"), and answered once committed; otherwise it is ingested as usual.
   */
  directTurn?: (
    event: ReplyEvent | StatusEvent,
    status?: IngestItem['status'],
  ) => Promise<DirectTurn>;
}

/**
 * What a direct turn did (`NotificationDeps.directTurn`): committed, or found committed before
 * (a redelivery), or left to the ingest (nothing written).
 */
export type DirectTurn = 'committed' | 'duplicate' | 'queue';

/** Where the ingest's inbox claims go: the process's worker, and the lease to claim with. */
export type InboxHandOff = HandOff<'inbox'> & { readonly leaseMs: number };

export interface NotificationResult {
  /**
   * The HTTP status to answer: 200 once durable (and its opt-outs suppressed), 400 for a body no
   * item of which is usable, 503 when the store is down (retry), 500 when it refused the call
   * (kept as a dead letter).
   */
  status: 200 | 400 | 500 | 503;
  message: string;
  duplicate?: boolean;
  accepted?: number;
  rejected?: number;
  /** What the usable items were, when the notification was stored (metrics). */
  type?: 'reply' | 'status' | 'mixed';
}

/**
 * The engine's entry point for a notification, with no transport: the webhook route, the CLI
 * and the tests all call it. Nothing is acknowledged before it is durable in the store.
 * Unusable items are kept as dead letters with their reason; the usable ones go in.
 */
export async function handleNotification(
  deps: NotificationDeps,
  location: string,
  raw: string,
): Promise<NotificationResult> {
  const now = deps.clock.now();
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch (error) {
    return reject(deps, location, raw, `body is not JSON: ${(error as Error).message}`, now);
  }
  // Texts with a lone surrogate are repaired field by field (classifyItems); ids are refused there.
  const tooDeep = jsonInputProblem(body, 'body', { strings: false });
  if (tooDeep) return reject(deps, location, raw, tooDeep, now);
  const envelope = notificationSchema.safeParse(body);
  if (!envelope.success) {
    return reject(deps, location, raw, `envelope: ${describe(envelope.error)}`, now);
  }
  const { items, rejected } = classifyItems(
    envelope.data,
    location,
    now,
    deps.defaultCountries?.get(location),
  );
  try {
    if (rejected.length > 0) {
      // One dead letter per notification, however many items it had wrong.
      const reasons = rejected.slice(0, 5).map((item) => `item ${item.index}: ${item.reason}`);
      if (rejected.length > 5) reasons.push(`and ${rejected.length - 5} more`);
      const reason = reasons.join('; ');
      if (items.length === 0) return reject(deps, location, raw, reason, now);
      await deps.store.pushDeadLetter(deadLetterOf(location, raw, reason, now));
    }
    if (items.length === 0) return reject(deps, location, raw, 'data holds no item', now);
    const single = items.length === 1 && rejected.length === 0 ? items[0] : undefined;
    const only = single?.event;
    // An opt-out keeps its path: suppressed here before the 200 (markOptOuts), then stepped.
    if (
      deps.directTurn &&
      only?.kind === 'reply' &&
      deps.optsOut?.(only.location, only.body) === undefined
    ) {
      // Committed in the request: durable before the 200 as an ingest would be, one Redis
      // script call less for the turn.
      const turn = await deps.directTurn(only);
      if (turn !== 'queue') {
        storeOutage(deps.store).answered(deps.logger);
        const duplicate = turn === 'duplicate';
        return {
          status: 200,
          message: duplicate ? 'duplicate: already received' : 'received',
          duplicate,
          accepted: duplicate ? 0 : 1,
          rejected: 0,
          type: 'reply',
        };
      }
    }
    // A status of a message the conversation's value holds, stepped in the request too: one
    // script call where the mailbox takes two (ingest, then the worker's commit).
    if (deps.directTurn && only?.kind === 'status' && single?.status) {
      if ((await deps.directTurn(only, single.status)) === 'committed') {
        storeOutage(deps.store).answered(deps.logger);
        return {
          status: 200,
          message: 'received',
          duplicate: false,
          accepted: 1,
          rejected: 0,
          type: 'status',
        };
      }
    }
    const handOff = deps.inboxHandOff;
    // Places held in the worker for the claims this ingest may make, so that concurrent
    // requests never claim more than its lanes can take.
    const held = handOff?.reserve(items.length) ?? 0;
    let result: Awaited<ReturnType<Store['ingest']>>;
    try {
      result = await deps.store.ingest(
        envelope.data.id,
        items,
        now,
        held > 0 ? { leaseMs: handOff!.leaseMs, max: held } : undefined,
      );
      storeOutage(deps.store).answered(deps.logger);
    } catch (error) {
      handOff?.unreserve(held);
      throw error;
    }
    // Each partition may claim up to `held`: the places run out before the claims can.
    const claims = result.claims ?? [];
    handOff?.unreserve(Math.max(0, held - claims.length));
    for (const [index, claim] of claims.entries()) {
      if (index < held && handOff?.offer(claim, now)) continue;
      // No place for it, or the worker stopped meanwhile: any worker may take it at once.
      await deps.store.release(claim, deps.clock.now()).catch((error: unknown) => {
        deps.logger.warn({ err: error }, 'could not release an inbox claim; its lease will expire');
      });
    }
    // A redelivery too: its first delivery may have got a 503 for want of the suppression.
    if (deps.optsOut) await markOptOuts(deps, items, now);
    return {
      status: 200,
      message: result.duplicate ? 'duplicate: already received' : 'received',
      duplicate: result.duplicate,
      accepted: result.pushed,
      rejected: rejected.length,
      type: itemsType(items),
    };
  } catch (error) {
    if (error instanceof StoreRefusedError) {
      // Not an outage: the same call would be refused again. Kept for inspection, and a 500.
      deps.logger.error({ err: error, location }, 'the store refused a notification');
      await deps.store
        .pushDeadLetter(deadLetterOf(location, raw, `store refused it: ${error.message}`, now))
        .catch(() => undefined);
      return { status: 500, message: 'the store refused this notification; it was kept' };
    }
    if (!(error instanceof StoreUnavailableError)) throw error;
    // Logged once per outage for the whole process, not once per notification the service retries.
    storeOutage(deps.store).failed(
      deps.logger,
      error,
      'store unavailable: answering 503 so the service retries',
      { location },
    );
    return { status: 503, message: 'store unavailable, retry later' };
  }
}

async function reject(
  deps: NotificationDeps,
  location: string,
  raw: string,
  reason: string,
  now: number,
): Promise<NotificationResult> {
  try {
    await deps.store.pushDeadLetter(deadLetterOf(location, raw, reason, now));
  } catch (error) {
    deps.logger.warn({ err: error, reason }, 'could not keep a dead letter');
  }
  deps.logger.warn({ location, reason }, 'notification refused');
  return { status: 400, message: reason };
}

function itemsType(items: { event: { kind: string } }[]): NotificationResult['type'] {
  const replies = items.filter((item) => item.event.kind === 'reply').length;
  return replies === items.length ? 'reply' : replies === 0 ? 'status' : 'mixed';
}

/**
 * Suppresses at once the phones whose reply is an opt-out and still waits for its step (the
 * step will suppress them too, and end their conversation and confirm): the 200 goes out only
 * once the suppression exists, so from then on the sender sends them nothing but the
 * confirmation. A failure throws, and the notification is answered 503: the service delivers
 * it again, and this redelivery, a duplicate, suppresses what still waits. An opt-out whose step
 * has run is left alone: the step suppressed the phone, and a START applied since must stay.
 */
async function markOptOuts(deps: NotificationDeps, items: IngestItem[], now: number) {
  for (const { event } of items) {
    if (event.kind !== 'reply') continue;
    const keyword = deps.optsOut?.(event.location, event.body);
    if (keyword === undefined) continue;
    const waiting = await deps.store.pendingEvents(event);
    if (!waiting.some((pending) => pending.id === event.id)) continue;
    await deps.store.markOptedOut(event, now, keyword.toUpperCase());
  }
}
