import { describe, expect, it } from 'vitest';
import { setup } from 'xstate';
import type { BotEvent } from '../../../src/bot/bot-events.ts';
import { defineBot } from '../../../src/bot/define-bot.ts';
import { createCompliancePolicy } from '../../../src/compliance/create-compliance-policy.ts';

const machine = setup({ types: { events: {} as BotEvent } }).createMachine({
  initial: 'idle',
  states: { idle: {} },
});

describe('defineBot claims', () => {
  it('normalises the claimed words as the compliance step matches them', () => {
    const bot = defineBot({ id: 'appointment', machine, claims: ['CANCEL', 'Annuler!', 'cancel'] });
    expect(bot.claims).toEqual(new Set(['cancel', 'annuler']));
    const policy = createCompliancePolicy();
    expect(policy.match(' Cancel. ', bot.claims)).toBeUndefined();
    expect(policy.match('Cancel')).toMatchObject({ kind: 'opt-out' });
  });

  it('claims nothing by default', () => {
    expect(defineBot({ id: 'plain', machine }).claims).toEqual(new Set());
  });

  it.each(['STOP', 'stop!', 'Arrêt', 'ARRETER', 'Stop All', 'STOPALL', 'stop sms'])(
    'refuses to let a bot claim %j',
    (word) => {
      expect(() => defineBot({ id: 'greedy', machine, claims: ['CANCEL', word] })).toThrowError(
        expect.objectContaining({
          code: 'BOT_DEFINITION_INVALID',
          message: expect.stringContaining(`bot 'greedy': '${word}' cannot be claimed`),
        }),
      );
    },
  );

  it('refuses a claimed word with no letters or digits', () => {
    expect(() => defineBot({ id: 'empty', machine, claims: ['🛑'] })).toThrowError(
      /claimed word '🛑' has no letters or digits/,
    );
  });
});
