import { describe, expect, it } from 'vitest';
import { assign, setup } from 'xstate';
import { collectReplyTexts } from '../../../src/bot/collect-reply-texts.ts';
import { formatLintTable } from '../../../src/bot/format-lint-table.ts';
import { countLintWarnings, lintBotTexts } from '../../../src/bot/lint-bot-texts.ts';
import { type BotEvent, defineBot, durations, reply } from '../../../src/index.ts';

const machine = setup({
  types: { events: {} as BotEvent, context: {} as { n: number } },
  actions: { greet: reply('Hello from a named action') },
  delays: durations('2h'),
}).createMachine({
  id: 'walk',
  context: { n: 0 },
  entry: ['greet', { type: 'greet' }],
  initial: 'a',
  states: {
    a: {
      exit: reply('leaving a'),
      after: { '2h': { actions: reply('two hours later') } },
      always: { guard: ({ context }) => context.n > 5, actions: reply('always') },
      on: {
        'sms.reply': [
          { guard: () => false, actions: [assign({ n: 1 }), reply('first branch')] },
          { target: 'b', actions: reply(({ event }) => `echo ${event.body}`) },
        ],
      },
    },
    b: { initial: 'c', states: { c: { entry: reply('nested ça') } } },
  },
});

describe('collectReplyTexts', () => {
  it('finds every reply: entry, exit, each transition, after, always, named and nested', () => {
    expect(collectReplyTexts(machine)).toEqual([
      { where: 'walk entry', text: 'Hello from a named action' },
      { where: 'walk entry', text: 'Hello from a named action' },
      { where: 'walk.a exit', text: 'leaving a' },
      { where: 'walk.a on sms.reply', text: 'first branch' },
      { where: 'walk.a on sms.reply', text: null },
      { where: 'walk.a after 2h', text: 'two hours later' },
      { where: 'walk.a always', text: 'always' },
      { where: 'walk.b.c entry', text: 'nested ça' },
    ]);
  });
});

describe('lintBotTexts and formatLintTable', () => {
  it('lints the static texts once per place, lists computed ones, and prints warnings under their row', () => {
    const bot = defineBot({ id: 'walk', machine });
    const rows = lintBotTexts([bot]);
    expect(rows).toHaveLength(7);
    expect(rows.find((row) => row.text === null)).toMatchObject({ lint: undefined });
    expect(countLintWarnings(rows)).toBe(1);
    const table = formatLintTable(rows).split('\n');
    expect(table[0]).toMatch(/^bot\s+where\s+encoding\s+parts\s+chars\s+text$/);
    const nested = table.findIndex((line) => line.includes('"nested ça"'));
    expect(table[nested]).toMatch(/^walk\s+walk\.b\.c entry\s+UCS-2\s+1\s+9\s+"nested ça"$/);
    expect(table[nested + 1]).toMatch(/^ {2}! 'ç' \(U\+00E7\) forces UCS-2.*write c instead$/);
    expect(table.find((line) => line.includes('computed'))).toMatch(
      /^walk\s+walk\.a on sms\.reply\s+-\s+-\s+-\s+\(computed: linted when sent\)$/,
    );
  });

  it('shortens long texts in the table and says when there is none', () => {
    const long = defineBot({
      id: 'long',
      machine: setup({}).createMachine({ entry: reply('x'.repeat(200)) }),
    });
    const [line] = formatLintTable(lintBotTexts([long]))
      .split('\n')
      .slice(1);
    expect(line).toMatch(/^long\s+long entry\s+GSM-7\s+2\s+200\s+"x{39}…"$/);
    expect(formatLintTable([])).toBe('(no reply texts)');
  });
});
