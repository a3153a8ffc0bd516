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
    machine: setup({ types: { events: {} as BotEvent }, guards: { saidOk } }).createMachine({
      initial: 'asking',
      states: {
        asking: {
          entry: reply(change.text ?? 'Reply yes'),
          after: { [change.delay ?? '24h']: { target: 'done' } },
          on: {
            'sms.reply': [
              { guard, target: change.target ?? 'done' },
              { guard: 'saidOk', target: 'done', actions: endConversation(change.endCode ?? 'ok') },
            ],
          },
        },
        other: {},
        done: { type: 'final' },
      },
    }),
  });
}

describe('a bot version', () => {
  const base = makeBot().version;

  it('stays the same when nothing changes', () => {
    expect(makeBot().version).toBe(base);
    expect(base).toMatch(/^[0-9a-f]{12}$/);
  });

  it('changes when an inline guard changes', () => {
    expect(makeBot({ guardWord: 'yep' }).version).not.toBe(base);
  });

  it('changes when the implementation of a named guard changes', () => {
    expect(makeBot({ namedGuard: 'okay' }).version).not.toBe(base);
  });

  it('changes when a reply text changes', () => {
    expect(makeBot({ text: 'Reply YES' }).version).not.toBe(base);
  });

  it('changes when a target changes', () => {
    expect(makeBot({ target: 'other' }).version).not.toBe(base);
  });

  it('changes when a delay changes', () => {
    expect(makeBot({ delay: '25h' }).version).not.toBe(base);
  });

  it('changes when an end code changes', () => {
    expect(makeBot({ endCode: 'accepted' }).version).not.toBe(base);
  });

  it('carries the explicit version, and a bump changes it', () => {
    const v1 = makeBot({ version: '1' }).version;
    const v2 = makeBot({ version: '2' }).version;
    expect(v1).toBe(`1+${base}`);
    expect(v2).toBe(`2+${base}`);
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
      }).version;
    const spaced = version("({ event }) => event.body === 'yes'");
    expect(version('({event})=>event.body==="yes"')).toBe(spaced);
    expect(version("({ event }) => event.body === 'no'")).not.toBe(spaced);
  });
});
