import { describe, expect, it } from 'vitest';
import { assign, createActor, setup } from 'xstate';
import {
  type BotEvent,
  matchChoice,
  matchDate,
  matchNumber,
  saidChoice,
  saidDate,
  saidNo,
  saidNumber,
  saidYes,
} from '../../../../src/index.ts';

const slots = ['Mardi 10h', 'Jeudi 9h30'];
const when = { timeZone: 'Europe/Paris', now: () => new Date('2026-12-01T08:00:00Z') };

interface Context {
  slot?: string;
  score?: number;
  at?: string;
}

// Typed with BotEvent, as a bot is: the guards go in without casts.
const machine = setup({ types: { events: {} as BotEvent, context: {} as Context } }).createMachine({
  context: {},
  initial: 'asking',
  states: {
    asking: {
      on: {
        'sms.reply': [
          { guard: saidYes, target: 'yes' },
          { guard: saidNo, target: 'no' },
          {
            guard: saidChoice(slots),
            target: 'chosen',
            actions: assign({ slot: ({ event }) => slots[matchChoice(event.body, slots)!] }),
          },
          {
            guard: saidNumber({ min: 0, max: 10 }),
            target: 'scored',
            actions: assign({
              score: ({ event }) => matchNumber(event.body, { min: 0, max: 10 }),
            }),
          },
          {
            guard: saidDate(when),
            target: 'dated',
            actions: assign({
              at: ({ event }) => matchDate(event.body, { ...when, now: when.now() })?.toISOString(),
            }),
          },
        ],
        // Another event type never matches, even with a body that would.
        'sms.status': { guard: saidYes, target: 'yes' },
      },
    },
    yes: {},
    no: {},
    chosen: {},
    scored: {},
    dated: {},
  },
});

function answer(body: string, receivedAt = '2026-12-01T08:00:00.000Z') {
  const actor = createActor(machine).start();
  actor.send({ type: 'sms.reply', body, from: '33612345678', receivedAt, originSmsId: 'm1' });
  const { value, context } = actor.getSnapshot();
  return { value, context };
}

describe('intent guards on sms.reply', () => {
  it('route yes, no, a choice, a number and a date', () => {
    expect(answer('Oui merci !').value).toBe('yes');
    expect(answer('non merci').value).toBe('no');
    expect(answer('jeudi 9h30')).toMatchObject({
      value: 'chosen',
      context: { slot: 'Jeudi 9h30' },
    });
    expect(answer('je dirais 7')).toMatchObject({ value: 'scored', context: { score: 7 } });
    expect(answer('mercredi 15h')).toMatchObject({
      value: 'dated',
      context: { at: '2026-12-02T14:00:00.000Z' },
    });
    expect(answer('hmm').value).toBe('asking');
  });

  it("saidDate counts from the reply's receivedAt unless given now", () => {
    const reply = { type: 'sms.reply', body: 'demain 9h', from: '1', originSmsId: 'm' } as const;
    const paris = saidDate({ timeZone: 'Europe/Paris' });
    expect(paris({ event: { ...reply, receivedAt: '2026-12-01T08:00:00.000Z' } })).toBe(true);
    // It reads receivedAt: one that is not a date is a clear error, not a silent guess.
    expect(() => paris({ event: { ...reply, receivedAt: 'not a date' } })).toThrow(
      /matchDate needs \{ now, timeZone \} with now a valid Date/,
    );
    const fixed = saidDate({ timeZone: 'Europe/Paris', now: new Date('2026-12-01T08:00:00Z') });
    expect(fixed({ event: { ...reply, receivedAt: 'not a date' } })).toBe(true);
    const timed = saidDate({ timeZone: 'Europe/Paris', requireTime: true });
    const at = '2026-12-01T08:00:00.000Z';
    expect(timed({ event: { ...reply, body: 'jeudi', receivedAt: at } })).toBe(false);
    expect(timed({ event: { ...reply, receivedAt: at } })).toBe(true);
  });

  it('are false for every other event type', () => {
    const events = [
      { type: 'sms.status', status: 'delivered', statusReason: 'oui', smsId: 'oui' },
      { type: 'conversation.start', input: { body: 'oui' } },
      { type: 'conversation.expire' },
      { type: 'something.else', body: 'oui' },
    ];
    for (const base of events) {
      // Each body would match as an sms.reply (checked on the last line of the loop).
      const saying = (body: string) => ({ event: { ...base, body } });
      expect(saidYes(saying('oui'))).toBe(false);
      expect(saidNo(saying('non'))).toBe(false);
      expect(saidChoice(slots)(saying('1'))).toBe(false);
      expect(saidNumber({ min: 0, max: 10 })(saying('1'))).toBe(false);
      expect(saidDate(when)(saying('demain 9h'))).toBe(false);
      const reply = { type: 'sms.reply', from: '1', receivedAt: '', originSmsId: 'm' } as const;
      expect(saidDate(when)({ event: { ...reply, body: 'demain 9h' } })).toBe(true);
    }
    const actor = createActor(machine).start();
    actor.send({ type: 'sms.status', status: 'delivered', statusReason: '', smsId: 'x' });
    expect(actor.getSnapshot().value).toBe('asking');
  });
});
