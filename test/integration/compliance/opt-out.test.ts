import { afterEach, describe, expect, it } from 'vitest';
import { createCompliancePolicy } from '../../../src/compliance/create-compliance-policy.ts';
import { createManualClock } from '../../../src/scheduler/create-manual-clock.ts';
import { droppedSmsId } from '../../../src/store/records.ts';
import {
  location,
  type ReplyLoop,
  replyNotification,
  settle,
  startReplyLoop,
} from '../../support/reply-loop.ts';
import { waitFor } from '../../support/wait-for.ts';
import { fallbackText, invalid, question, registry, reminderText } from './compliance-bots.ts';

const policy = createCompliancePolicy();
const confirmationOf = (form: string) => {
  const match = policy.match(form);
  expect(match?.kind, `'${form}' is an opt-out`).toBe('opt-out');
  return policy.text('opt-out', match!.language);
};

let notifications = 0;
/**
 * The person texts the short code (straight to replyflow's webhook, as the service would).
 * Resolves to the id of the event: the first answer to it is the outbox message `<id>:0`.
 */
async function say(loop: ReplyLoop, phone: string, body: string): Promise<string> {
  const id = `n-${++notifications}-${phone}`;
  expect(await loop.notify(replyNotification(id, phone, body))).toBe(200);
  return `${id}:0`;
}

const key = (phone: string) => ({ location, phone });

describe('opt-out compliance, on real Redis with the emulator', () => {
  let loop: ReplyLoop | undefined;
  afterEach(async () => {
    await loop?.close();
    loop = undefined;
  });

  it('STOP in 12 forms suppresses the number: one confirmation each, then nothing, from any bot or API start', async () => {
    loop = await startReplyLoop({ registry });
    const forms = [
      'STOP',
      'stop',
      'Stop!',
      ' STOP ',
      'Arrêt',
      'ARRET',
      'arrêt.',
      'STOP 🛑',
      '«Stop»',
      'Stop all',
      'unsubscribe',
      'Désinscrire',
    ];
    const phones = forms.map((_, i) => `3361110${String(i).padStart(4, '0')}`);
    for (const phone of phones) await loop.start(phone, 'quiz');
    for (const phone of phones) await loop.waitForBodies(phone, 1);
    for (const [i, form] of forms.entries()) await say(loop, phones[i]!, form);
    for (const [i, form] of forms.entries()) {
      const phone = phones[i]!;
      expect(await loop.waitForBodies(phone, 2)).toEqual([question, confirmationOf(form)]);
      expect(await loop.store.isSuppressed(key(phone))).toBe(true);
      expect(await loop.store.getConversation(key(phone))).toMatchObject({
        botId: 'quiz',
        status: 'done',
        endedReason: 'opted_out',
      });
    }
    // Afterwards: a reply (the fallback bot), a keyword (the quiz), and an API start.
    for (const phone of phones) {
      await say(loop, phone, 'hello?');
      await say(loop, phone, 'QUIZ');
      await loop.start(phone, 'quiz');
    }
    for (const [i, form] of forms.entries()) {
      await settle(loop, phones[i]!);
      expect(await loop.bodiesTo(phones[i]!)).toEqual([question, confirmationOf(form)]);
    }
  });

  it('lets six near misses reach the bot', async () => {
    loop = await startReplyLoop({ registry });
    const nearMisses = [
      'stop by tomorrow',
      'stopover',
      'non-stop',
      "don't stop",
      'stop it please',
      'helpful',
    ];
    const phones = nearMisses.map((_, i) => `3361120${String(i).padStart(4, '0')}`);
    for (const phone of phones) await loop.start(phone, 'quiz');
    for (const phone of phones) await loop.waitForBodies(phone, 1);
    for (const [i, text] of nearMisses.entries()) await say(loop, phones[i]!, text);
    for (const [i, text] of nearMisses.entries()) {
      const phone = phones[i]!;
      expect(await loop.waitForBodies(phone, 2)).toEqual([question, invalid]);
      const record = await loop.store.getConversation(key(phone));
      expect(record).toMatchObject({ status: 'active' });
      expect(record?.snapshot).toMatchObject({ value: 'asking', context: { heard: [text] } });
      expect(await loop.store.isSuppressed(key(phone))).toBe(false);
    }
  });

  it('never sends a reminder armed before STOP, nor a message already in the outbox (recorded suppressed)', async () => {
    const clock = createManualClock(Date.parse('2026-12-01T09:00:00Z'));
    loop = await startReplyLoop({ registry, clock, roles: { sender: false, scheduler: false } });
    const phone = '33611130001';
    await loop.start(phone, 'quiz');
    // The question waits in the outbox (no sender runs yet), and the reminder is armed.
    const [queued] = await waitFor(async () => {
      const outbound = await loop!.store.pendingOutbound(key(phone));
      return outbound.length > 0 && outbound;
    });
    expect(queued?.body).toBe(question);
    expect((await loop.store.pendingTimers(key(phone))).length).toBeGreaterThan(0);

    await say(loop, phone, 'STOP');
    await waitFor(async () => (await loop!.store.pendingTimers(key(phone))).length === 0, {
      message: 'the STOP cancelled the timers',
    });

    const sender = await loop.startInstance({ web: false, worker: false, scheduler: true });
    // The sender empties the outbox first: a jump of the manual clock while one of its lanes
    // holds the outbox would make the claim of another lane a takeover of an expired lease.
    expect(await loop.waitForBodies(phone, 1)).toEqual([confirmationOf('STOP')]);
    clock.advance('2h');
    await sender.fireDueTimers!();
    await settle(loop, phone);
    expect(await loop.bodiesTo(phone)).toEqual([confirmationOf('STOP')]);
    expect(await loop.store.getMessage(phone, droppedSmsId(queued!.id))).toMatchObject({
      status: 'errored',
      statusReason: 'suppressed',
    });
    expect(await loop.bodiesTo(phone)).not.toContain(reminderText);
  });

  it('HELP answers and leaves the conversation where it was; a claimed word reaches the bot; START restores sending', async () => {
    loop = await startReplyLoop({ registry });
    const phone = '33611140001';
    await loop.start(phone, 'quiz');
    await loop.waitForBodies(phone, 1);
    await settle(loop, phone);
    const before = await loop.store.getConversation(key(phone));
    await say(loop, phone, 'HELP');
    const help = policy.text('help', policy.match('HELP')!.language);
    expect(await loop.waitForBodies(phone, 2)).toEqual([question, help]);
    const after = await loop.store.getConversation(key(phone));
    expect(after).toMatchObject({ runId: before?.runId, status: 'active' });
    expect(after?.snapshot).toEqual(before?.snapshot);
    // Still asking: the next reply is judged as an answer to the question.
    await say(loop, phone, '9');
    expect(await loop.waitForBodies(phone, 3)).toEqual([question, help, invalid]);
    // CANCEL is the quiz's while it runs.
    await say(loop, phone, 'cancel');
    expect((await loop.waitForBodies(phone, 4))[3]).toBe('Quiz cancelled.');

    await say(loop, phone, 'STOP');
    await loop.waitForBodies(phone, 5);
    await loop.start(phone, 'quiz');
    await settle(loop, phone);
    expect(await loop.bodiesTo(phone)).toHaveLength(5);

    await say(loop, phone, 'START');
    const optIn = policy.text('opt-in', policy.match('START')!.language);
    expect((await loop.waitForBodies(phone, 6))[5]).toBe(optIn);
    expect(await loop.store.isSuppressed(key(phone))).toBe(false);
    await say(loop, phone, 'QUIZ');
    expect((await loop.waitForBodies(phone, 7))[6]).toBe(question);
    // With no active conversation, CANCEL is an opt-out again.
    await say(loop, phone, '4');
    await loop.waitForBodies(phone, 8);
    await say(loop, phone, 'CANCEL');
    expect((await loop.waitForBodies(phone, 9))[8]).toBe(confirmationOf('CANCEL'));
  });

  it('holds across a restart and 3 worker processes, for every bot and every API start', async () => {
    loop = await startReplyLoop({
      registry,
      roles: { worker: false, sender: false, scheduler: false },
    });
    const workers = await Promise.all([1, 2, 3].map(() => loop!.startInstance()));
    const [stopped, control] = ['33611150001', '33611150002'];
    for (const phone of [stopped!, control!]) await loop.start(phone, 'quiz');
    await loop.waitForBodies(stopped!, 1);
    await say(loop, stopped!, 'ARRET');
    await loop.waitForBodies(stopped!, 2);
    await Promise.all(workers.map((w) => w.close()));

    // Restarted: three fresh processes on the same Redis.
    await Promise.all([1, 2, 3].map(() => loop!.startInstance()));
    await say(loop, stopped!, 'hello'); // the fallback bot
    await say(loop, stopped!, 'QUIZ'); // a keyword bot
    await say(loop, stopped!, 'PARROT'); // another
    await loop.start(stopped!, 'quiz'); // the API
    await loop.start(control!, 'parrot'); // refused: the control phone's quiz is active
    await say(loop, control!, '2');
    await settle(loop, stopped!);
    await settle(loop, control!);
    expect(await loop.bodiesTo(stopped!)).toEqual([question, confirmationOf('ARRET')]);
    expect(await loop.bodiesTo(control!)).toEqual([question, 'Thanks, you picked 2.']);
    expect(fallbackText).not.toBe(question);
  });

  it('quiet hours: a timer-driven message due at 23:00 waits for the window to end, across a restart; a direct answer at 23:00 goes at once', async () => {
    // 2026-12-01 22:00 in Paris (UTC+1): the quiz's reminder comes due an hour after it starts.
    const clock = createManualClock(Date.parse('2026-12-01T21:00:00Z'));
    loop = await startReplyLoop({
      registry,
      clock,
      roles: { worker: false, sender: false, scheduler: false },
      compliance: { quietHours: { timeZone: 'Europe/Paris', window: '21:00-08:00' } },
    });
    const first = await loop.startInstance();
    const [timed, answered] = ['33611160001', '33611160002'];
    // A person's keyword is answered at once, even at night.
    await say(loop, timed!, 'QUIZ');
    await say(loop, answered!, 'PARROT');
    await loop.waitForBodies(timed!, 1);

    // 23:00 in Paris: the quiz's reminder comes due; the other person writes to the parrot.
    clock.set(Date.parse('2026-12-01T22:00:00Z'));
    await first.fireDueTimers!();
    await say(loop, answered!, 'still up?');
    expect(await loop.waitForBodies(answered!, 1)).toEqual(['heard: still up?']);
    await settle(loop, timed!);
    expect(await loop.bodiesTo(timed!)).toEqual([question]);
    const [held] = await loop.store.pendingOutbound(key(timed!));
    expect(held).toMatchObject({
      body: reminderText,
      holdUntil: Date.parse('2026-12-02T07:00:00Z'),
    });

    // Held durably: the process stops for the night, another starts; at 08:00 in Paris it goes.
    await first.close();
    clock.set(Date.parse('2026-12-02T07:00:00Z'));
    await loop.startInstance();
    expect(await loop.waitForBodies(timed!, 2)).toEqual([question, reminderText]);
  });

  it('sends at most the loop guard’s number of SMS to a phone that sends 1,000 messages in a second, and loses nothing for others', async () => {
    loop = await startReplyLoop({ registry, compliance: { loopGuard: { max: 10, window: '1m' } } });
    const noisy = '33611170001';
    const others = ['33611170002', '33611170003', '33611170004', '33611170005'];
    for (const phone of [noisy, ...others]) await say(loop, phone, 'PARROT');
    const bodies = [
      ...Array.from({ length: 1_000 }, (_, i) => [noisy, `ping ${i}`] as const),
      ...others.flatMap((phone) =>
        Array.from({ length: 5 }, (_, i) => [phone, `hi ${i}`] as const),
      ),
    ];
    const started = Date.now();
    const noisyEvents: string[] = [];
    for (let i = 0; i < bodies.length; i += 100) {
      const ids = await Promise.all(
        bodies.slice(i, i + 100).map(([phone, body]) => say(loop!, phone, body)),
      );
      ids.forEach((id, j) => {
        if (bodies[i + j]![0] === noisy) noisyEvents.push(id);
      });
    }
    const postedIn = Date.now() - started;
    for (const phone of others) {
      expect(await loop.waitForBodies(phone, 5)).toEqual(
        Array.from({ length: 5 }, (_, i) => `heard: hi ${i}`),
      );
    }
    for (const phone of [noisy, ...others]) await settle(loop, phone);
    const toNoisy = await loop.bodiesTo(noisy);
    expect(toNoisy.length, `posted in ${postedIn} ms`).toBe(10);
    // Every message was answered (nothing lost): 10 answers sent, the rest dropped by the guard.
    const fates = await Promise.all(
      noisyEvents.map(async (event) => {
        const dropped = await loop!.store.getMessage(noisy, droppedSmsId(`${event}:0`));
        return dropped?.statusReason ?? 'sent';
      }),
    );
    expect(fates.filter((fate) => fate === 'loop_guard')).toHaveLength(990);
    expect(fates.filter((fate) => fate === 'sent')).toHaveLength(10);
    for (const phone of others) expect(await loop.bodiesTo(phone)).toHaveLength(5);
  });
});
