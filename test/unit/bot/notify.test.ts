import { describe, expect, it } from 'vitest';
import { setup } from 'xstate';
import { notify } from '../../../src/bot/notify.ts';
import { collectEffects } from '../../../src/conversation/collect-effects.ts';
import {
  pureInitialTransition,
  pureTransition,
} from '../../../src/conversation/pure-transition.ts';

describe('notify', () => {
  it("is collected as data with its type and the payload computed from the step's event", () => {
    const machine = setup({
      types: {} as { context: { slot: string }; events: { type: 'sms.reply'; body: string } },
    }).createMachine({
      context: { slot: 'mardi' },
      initial: 'asking',
      states: {
        asking: {
          on: {
            'sms.reply': {
              target: 'done',
              actions: [
                notify('appointment.rescheduled', ({ context, event }) => ({
                  from: context.slot,
                  to: event.body,
                })),
                notify('appointment.touched'),
              ],
            },
          },
        },
        done: { type: 'final' },
      },
    });
    const [first] = pureInitialTransition(machine, undefined);
    const [, actions] = pureTransition(machine, first, { type: 'sms.reply', body: 'jeudi 14h' });
    expect(collectEffects(actions).notified).toEqual([
      { type: 'appointment.rescheduled', payload: { from: 'mardi', to: 'jeudi 14h' } },
      { type: 'appointment.touched', payload: {} },
    ]);
  });

  it('refuses a built-in type or a name that is not dotted lowercase, when the bot is defined', () => {
    expect(() => notify('conversation.ended')).toThrow(/replyflow emits itself/);
    expect(() => notify('optout')).toThrow(/replyflow emits itself/);
    // Its namespaces too: no subscription could name them, a receiver would take them for its.
    expect(() => notify('conversation.rescheduled')).toThrow(/replyflow's own events/);
    expect(() => notify('result.final')).toThrow(/replyflow's own events/);
    expect(() => notify('results.export')).not.toThrow();
    for (const bad of ['Appointment.Confirmed', 'confirmed', 'appointment..x', 'a.b-c', '']) {
      expect(() => notify(bad)).toThrow(/lowercase words joined by dots/);
    }
    expect(() => notify('appointment.confirmed_2')).not.toThrow();
  });
});
