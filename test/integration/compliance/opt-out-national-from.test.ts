import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWithPolicy } from '../../../src/admin/start-with-policy.ts';
import type { LocationConfig } from '../../../src/app/config.ts';
import { createCompliancePolicy } from '../../../src/compliance/create-compliance-policy.ts';
import { createManualClock } from '../../../src/scheduler/create-manual-clock.ts';
import {
  location,
  type ReplyLoop,
  replyNotification,
  settle,
  startReplyLoop,
} from '../../support/reply-loop.ts';
import { question, registry, reminderText } from './compliance-bots.ts';

const policy = createCompliancePolicy();
const stopped = policy.text('opt-out', policy.match('STOP')!.language);

describe('a STOP whose from is in national form (default country US), on real Redis with the emulator', () => {
  const clock = createManualClock(Date.parse('2026-12-01T15:00:00Z'));
  let loop: ReplyLoop;
  beforeAll(async () => {
    loop = await startReplyLoop({ registry, clock, defaultCountry: 'US' });
  });
  afterAll(() => loop?.close());

  it('suppresses the number the sends use (not +20…, an Egyptian landline): no reminder, no later start', async () => {
    const phone = '12015550123';
    const deps = {
      store: loop.store,
      registry,
      locations: [{ name: location, defaultCountry: 'US' } as LocationConfig],
      now: () => clock.now(),
      logger: pino({ level: 'silent' }),
    };
    const started = await startWithPolicy(deps, { bot: 'quiz', phone: '+1 201 555 0123' });
    expect(started).toMatchObject({ status: 202, body: { phone } });
    expect(await loop.waitForBodies(phone, 1)).toEqual([question]);

    expect(await loop.notify(replyNotification('stop-national', '2015550123', 'STOP'))).toBe(200);
    expect(await loop.waitForBodies(phone, 2)).toEqual([question, stopped]);
    expect(await loop.store.isSuppressed({ location, phone })).toBe(true);
    expect(await loop.store.getConversation({ location, phone })).toMatchObject({
      status: 'done',
      endedReason: 'opted_out',
    });
    expect(await loop.store.getConversation({ location, phone: '2015550123' })).toBeNull();

    // The quiz's reminder comes an hour after its question; then another start.
    clock.advance('2h');
    await loop.app.fireDueTimers!();
    await loop.start(phone, 'quiz');
    await settle(loop, phone);
    expect(await loop.bodiesTo(phone)).toEqual([question, stopped]);
    expect(await loop.bodiesTo(phone)).not.toContain(reminderText);
  });
});
