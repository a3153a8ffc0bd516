import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningReplyflow } from '../../../src/app/start-replyflow.ts';
import {
  type ReplyLoop,
  replyNotification,
  settle,
  startReplyLoop,
} from '../../support/reply-loop.ts';
import { waitFor } from '../../support/wait-for.ts';
import { registry } from './compliance-bots.ts';

/** `replyflow_sends_total{result}` as the process's own registry has it. */
async function sends(app: RunningReplyflow, result: string): Promise<number> {
  const text = await app.metrics.registry.metrics();
  const match = new RegExp(`^replyflow_sends_total\\{result="${result}"\\} (\\S+)$`, 'm').exec(
    text,
  );
  return Number(match?.[1] ?? Number.NaN);
}

describe('replyflow_sends_total moves for suppressed, loop_guard and in_doubt sends', () => {
  let loop: ReplyLoop;
  beforeAll(async () => {
    // No sender in the loop's own process: messages wait in the outbox until one starts.
    loop = await startReplyLoop({
      registry,
      roles: { sender: false },
      inDoubtGraceMs: 10_000,
      compliance: { loopGuard: { max: 1, window: '1h' } },
    });
  });
  afterAll(() => loop.close());

  it('counts each in the sending process', { timeout: 30_000 }, async () => {
    const [stopped, noisy, doubtful] = ['33611190001', '33611190002', '33611190003'];
    let n = 0;
    const say = async (phone: string, body: string) =>
      expect(await loop.notify(replyNotification(`m-${++n}`, phone, body))).toBe(200);
    // Queued before the STOP, sent after it: suppressed.
    await loop.start(stopped, 'quiz');
    await waitFor(
      async () =>
        (await loop.store.pendingOutbound({ location: 'paris', phone: stopped })).length === 1,
    );
    await say(stopped, 'STOP');
    // Two answers within the guard's hour: the second is dropped.
    await say(noisy, 'PARROT');
    await say(noisy, 'one');
    await say(noisy, 'two');
    await waitFor(
      async () =>
        (await loop.store.pendingOutbound({ location: 'paris', phone: noisy })).length === 2,
      { message: 'both answers queued' },
    );
    // The first send to this phone is accepted, then answered 500: in doubt.
    await fetch(`${loop.emulator.url}/_emulator/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ path: 'POST /sms', count: 1, status: 500, when: 'after' }),
    });
    const sender = await loop.startInstance({ web: false, worker: false, scheduler: false });
    await loop.start(doubtful, 'quiz');
    await loop.waitForBodies(stopped, 1);
    await loop.waitForBodies(noisy, 1);
    await loop.waitForBodies(doubtful, 1, 20_000);
    await waitFor(async () => (await sends(sender, 'in_doubt')) >= 1, {
      message: 'in_doubt counted',
    });
    // The loop guard drops the second answer in the call that records the first as sent, which
    // may end a moment after the handset got that first answer.
    await waitFor(async () => (await sends(sender, 'loop_guard')) >= 1, {
      message: 'loop_guard counted',
    });
    expect(await sends(sender, 'suppressed')).toBe(1);
    expect(await sends(sender, 'loop_guard')).toBe(1);
    expect(await sends(sender, 'in_doubt')).toBe(1);
    // The one in doubt was found sent by its status: one SMS, not two.
    await settle(loop, doubtful);
    expect(await loop.bodiesTo(doubtful)).toHaveLength(1);
  });
});
