import { describe, expect, it } from 'vitest';
import { setup } from 'xstate';
import { type BotEvent, defineBot, endConversation, reply } from '../../../src/index.ts';

/** One bot definition with knobs: each test changes one thing and keeps the rest. */
function makeBot(
  change: {
    guardWord?: string;
    text?: string;
    target?: 'done' | 'other';
    delay?: string;
    version?: string;
    namedGuard?: string;
    endCode?: string;
    stateName?: string;
    guardName?: string;
  } = {},
) {
  const word = change.guardWord ?? 'yes';
  const namedWord = change.namedGuard ?? 'ok';
  const guard =
    word === 'yes'
      ? ({ event }: { event: BotEvent }) => event.type === 'sms.reply' && event.body === 'yes'
      : ({ event }: { event: BotEvent }) => event.type === 'sms.reply' && event.body === 'yep';
  const saidOk =
    namedWord === 'ok'
      ? ({ event }: { event: BotEvent }) => event.type === 'sms.reply' && event.body === 'ok'
      : ({ event }: { event: BotEvent }) => event.type === 'sms.reply' && event.body === 'okay';
  return defineBot({
    id: 'versioned',
    version: change.version,
    machine: setup({
      types: { events: {} as BotEvent },
      guards: { [change.guardName ?? 'saidOk']: saidOk },
    }).createMachine({
      initial: 'asking',
      states: {
        asking: {
          entry: reply(change.text ?? 'Reply yes'),
          after: { [change.delay ?? '24h']: { target: 'done' } },
          on: {
            'sms.reply': [
              { guard, target: change.target ?? 'done' },
              {
                guard: change.guardName ?? 'saidOk',
                target: 'done',
                actions: endConversation(change.endCode ?? 'ok'),
              },
            ],
          },
        },
        [change.stateName ?? 'other']: {},
        done: { type: 'final' },
      },
    }),
  });
}

describe('a bot version: the structure of its machine', () => {
  const base = makeBot().version;
  const content = makeBot().contentVersion;

  it('stays the same when nothing changes', () => {
    expect(makeBot().version).toBe(base);
    expect(base).toMatch(/^[0-9a-f]{12}$/);
    expect(makeBot().contentVersion).toBe(content);
  });

  it.each([
    ['an inline guard', { guardWord: 'yep' }],
    ['the implementation of a named guard', { namedGuard: 'okay' }],
    ['a reply text', { text: 'Reply YES' }],
    ['an end code', { endCode: 'accepted' }],
  ])('keeps the version when %s changes (its content version changes)', (_, change) => {
    expect(makeBot(change).version).toBe(base);
    expect(makeBot(change).contentVersion).not.toBe(content);
  });

  it.each([
    ['a target', { target: 'other' as const }],
    [
      'a delay (an after transition is another event, under which its timer is kept)',
      { delay: '25h' },
    ],
    ['a state', { stateName: 'elsewhere' }],
    ['a guard name', { guardName: 'saidOkay' }],
  ])('changes when %s changes', (_, change) => {
    expect(makeBot(change).version).not.toBe(base);
  });

  it('carries the explicit version, and a bump changes it', () => {
    const v1 = makeBot({ version: '1' }).version;
    const v2 = makeBot({ version: '2' }).version;
    expect(v1).toBe(`1+${base}`);
    expect(v2).toBe(`2+${base}`);
    expect(makeBot({ version: '1' }).contentVersion).toBe(`1+${content}`);
  });

  it('ignores the layout and quote style of inline functions (loaders print code differently)', () => {
    const version = (guardSource: string) =>
      defineBot({
        id: 'layout',
        machine: setup({ types: { events: {} as BotEvent } }).createMachine({
          initial: 'a',
          states: {
            a: {
              on: { 'sms.reply': { guard: new Function(`return ${guardSource}`)(), target: 'b' } },
            },
            b: {},
          },
        }),
      }).contentVersion;
    const spaced = version("({ event }) => event.body === 'yes'");
    expect(version('({event})=>event.body==="yes"')).toBe(spaced);
    expect(version("({ event }) => event.body === 'no'")).not.toBe(spaced);
  });
});
