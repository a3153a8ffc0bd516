import { afterEach, describe, expect, it } from 'vitest';
import { createCompliancePolicy } from '../../../src/compliance/create-compliance-policy.ts';
import type { Store } from '../../../src/store/store.ts';
import { StoreUnavailableError } from '../../../src/store/store-errors.ts';
import {
  location,
  type ReplyLoop,
  replyNotification,
  startReplyLoop,
} from '../../support/reply-loop.ts';
import { waitFor } from '../../support/wait-for.ts';
import { registry } from '../compliance/compliance-bots.ts';

const policy = createCompliancePolicy();
const confirmation = policy.text('opt-out', policy.match('STOP')!.language);

/** Makes the store's next `markOptedOut` fail as a Redis outage would; the calls made are counted. */
function failNextOptOut(store: Store): { calls: number } {
  const original = store.markOptedOut.bind(store);
  const seen = { calls: 0 };
  store.markOptedOut = async (...args) => {
    seen.calls++;
    if (seen.calls === 1) throw new StoreUnavailableError('store unavailable: connection lost');
    return original(...args);
  };
  return seen;
}

describe('a STOP is acknowledged only once its suppression exists', () => {
  let loop: ReplyLoop | undefined;
  afterEach(async () => {
    await loop?.close();
    loop = undefined;
  });

  it('answers 503 when the opt-out cannot be recorded, and the redelivery records it', async () => {
    // No worker: the STOP's step does not run, so only the webhook can suppress the phone.
    loop = await startReplyLoop({ registry, roles: { worker: false } });
    const phone = '33611900001';
    const marks = failNextOptOut(loop.store);
    const stop = replyNotification('stop-once-1', phone, 'STOP');
    expect(await loop.notify(stop)).toBe(503);
    expect(await loop.store.isSuppressed({ location, phone })).toBe(false);
    // The service delivers it again: a duplicate now, whose opt-out still waits for its step.
    expect(await loop.notify(stop)).toBe(200);
    expect(marks.calls).toBe(2);
    expect(await loop.store.isSuppressed({ location, phone })).toBe(true);
  });

  it('leaves a redelivered STOP whose step has run alone: a START since then stays', async () => {
    loop = await startReplyLoop({ registry });
    const phone = '33611900002';
    failNextOptOut(loop.store);
    const stop = replyNotification('stop-once-2', phone, 'STOP');
    expect(await loop.notify(stop)).toBe(503);
    // Stored all the same: its step suppresses the phone and confirms.
    expect(await loop.waitForBodies(phone, 1)).toEqual([confirmation]);
    expect(await loop.store.isSuppressed({ location, phone })).toBe(true);
    expect(await loop.notify(replyNotification('start-once-2', phone, 'START'))).toBe(200);
    await waitFor(async () => !(await loop!.store.isSuppressed({ location, phone })), {
      message: 'the START applied',
    });
    expect(await loop.notify(stop)).toBe(200);
    expect(await loop.store.isSuppressed({ location, phone })).toBe(false);
  });
});
