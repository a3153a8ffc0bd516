import { describe, expect, it } from 'vitest';
import {
  type AnyMachineSnapshot,
  type AnyStateMachine,
  createMachine,
  fromTransition,
  initialTransition,
  spawnChild,
  transition,
} from 'xstate';
import appointment from '../../../bots/appointment.ts';
import survey from '../../../bots/survey.ts';
import {
  pureInitialTransition,
  pureTransition,
} from '../../../src/conversation/pure-transition.ts';

const now = '2026-11-24T10:00:00.000Z';
const reply = (body: string) => ({
  type: 'sms.reply',
  body,
  from: '33612345678',
  receivedAt: now,
  originSmsId: 'sms-1',
});

/** What a step keeps of a transition: the persisted snapshot and the actions' types and params. */
function outcome(
  machine: AnyStateMachine,
  [snapshot, actions]: readonly [AnyMachineSnapshot, unknown[]],
) {
  return {
    snapshot: machine.getPersistedSnapshot(snapshot),
    actions: actions.map((action) => {
      const { type, params } = action as { type: string; params?: unknown };
      return { type, params };
    }),
  };
}

describe('pureTransition and pureInitialTransition', () => {
  it.each([
    {
      name: 'survey',
      machine: survey.machine,
      input: { location: 'paris', phone: '33612345678', input: {} },
      start: { type: 'conversation.start', input: {}, receivedAt: now },
      replies: ['2', 'not a number', '9', 'great service', 'STOP?'],
    },
    {
      name: 'appointment',
      machine: appointment.machine,
      input: {
        location: 'paris',
        phone: '33612345678',
        input: { name: 'Ana', at: '2026-11-26T09:30:00.000Z', place: 'Rue de Rivoli' },
      },
      start: {
        type: 'conversation.start',
        input: { name: 'Ana', at: '2026-11-26T09:30:00.000Z', place: 'Rue de Rivoli' },
        receivedAt: now,
      },
      replies: ['maybe', 'NO', 'tomorrow 3pm', 'YES'],
    },
  ])(
    'gives what XState gives, turn after turn, for the $name bot',
    ({ machine, input, start, replies }) => {
      const theirs = initialTransition(machine, input as never);
      const ours = pureInitialTransition(machine, input);
      expect(outcome(machine, ours)).toEqual(outcome(machine, theirs));
      let [their, mine] = [theirs[0], ours[0]];
      for (const event of [start, ...replies.map(reply)]) {
        const next = transition(machine, their, event as never);
        const pure = pureTransition(machine, mine, event);
        expect(outcome(machine, pure)).toEqual(outcome(machine, next));
        [their, mine] = [next[0], pure[0]];
      }
    },
  );

  it('gives each call its own actor system: a child spawned with a systemId on every step never collides', () => {
    const child = fromTransition((count: number) => count + 1, 0);
    const machine = createMachine({
      initial: 'idle',
      states: {
        idle: {
          on: { go: { actions: spawnChild(child, { id: 'counter', systemId: 'counter' }) } },
        },
      },
    });
    const [first] = pureInitialTransition(machine, undefined);
    for (let i = 0; i < 3; i++) {
      const [next] = pureTransition(machine, first, { type: 'go' });
      expect(Object.keys(next.children)).toEqual(['counter']);
    }
  });

  it('collects the actions and runs none of them', () => {
    let ran = 0;
    const machine = createMachine({
      initial: 'a',
      states: {
        a: { on: { go: { target: 'b', actions: () => ran++ } } },
        b: { entry: () => ran++ },
      },
    });
    const [first] = pureInitialTransition(machine, undefined);
    const [next, actions] = pureTransition(machine, first, { type: 'go' });
    expect(next.value).toBe('b');
    expect(actions).toHaveLength(2);
    expect(ran).toBe(0);
  });
});
