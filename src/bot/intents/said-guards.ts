import type { BotEvent } from '../bot-events.ts';
import { matchChoice } from './match-choice.ts';
import { type DateOptions, matchDate } from './match-date.ts';
import { matchNumber, type NumberRange } from './match-number.ts';
import { matchNo, matchYes } from './match-yes-no.ts';

/** What an XState guard receives; only the event is read. */
export interface IntentGuardArgs {
  event: BotEvent | { type: string };
}

/** A guard usable as `guard: …` on a transition of a machine typed with `BotEvent`. */
export type IntentGuard = (args: IntentGuardArgs) => boolean;

/** The text of an `sms.reply` event; undefined for every other event. */
function replyText(event: IntentGuardArgs['event']): string | undefined {
  return event.type === 'sms.reply' ? (event as { body?: unknown }).body?.toString() : undefined;
}

/** `name` is what the statecharts of the dev phone and the dashboard label the guard with. */
function guardOf(name: string, test: (text: string) => boolean): IntentGuard {
  const guard: IntentGuard = ({ event }) => {
    const text = replyText(event);
    return text !== undefined && test(text);
  };
  return Object.defineProperty(guard, 'name', { value: name });
}

/**
 * A guard: the person's reply says yes (see `matchYes`). False for any other event.
 *
 * @example
 * on: { 'sms.reply': [{ guard: saidYes, target: 'confirmed' }, { guard: saidNo, target: 'declined' }] }
 */
export const saidYes: IntentGuard = guardOf('saidYes', matchYes);

/**
 * A guard: the person's reply says no (see `matchNo`). False for any other event.
 *
 * @example
 * on: { 'sms.reply': { guard: saidNo, target: 'declined' } }
 */
export const saidNo: IntentGuard = guardOf('saidNo', matchNo);

/**
 * A guard factory: the reply picks one of `choices` (see `matchChoice`). Read which one with
 * `matchChoice(event.body, choices)` in the transition's actions.
 *
 * @example
 * const channels = ['Par SMS', 'Par téléphone'];
 * on: {
 *   'sms.reply': {
 *     guard: saidChoice(channels),
 *     actions: assign({ channel: ({ event }) => channels[matchChoice(event.body, channels)!] }),
 *   },
 * }
 */
export function saidChoice(choices: readonly string[]): IntentGuard {
  return guardOf('saidChoice', (text) => matchChoice(text, choices) !== undefined);
}

/**
 * A guard factory: the reply holds one number in `range` (see `matchNumber`).
 *
 * @example
 * on: {
 *   'sms.reply': {
 *     guard: saidNumber({ min: 0, max: 10 }),
 *     actions: assign({ score: ({ event }) => matchNumber(event.body, { min: 0, max: 10 }) }),
 *   },
 * }
 */
export function saidNumber(range: NumberRange = {}): IntentGuard {
  return guardOf('saidNumber', (text) => matchNumber(text, range) !== undefined);
}

/** The options of `saidDate`: those of `matchDate`, with `now` optional. */
export interface SaidDateOptions extends Omit<DateOptions, 'now'> {
  /**
   * What `demain` counts from. Default: the reply's `receivedAt`, the engine clock's time when
   * the message arrived (a test's manual clock too). A function is read at each reply.
   */
  now?: Date | (() => Date);
}

/**
 * A guard factory: the reply holds one date (see `matchDate`), counted from when the reply was
 * received. Read the date in the actions with the same `now`: `new Date(event.receivedAt)`.
 *
 * @example
 * const paris = { timeZone: 'Europe/Paris' };
 * on: {
 *   'sms.reply': {
 *     guard: saidDate(paris),
 *     actions: assign({
 *       at: ({ event }) => matchDate(event.body, { ...paris, now: new Date(event.receivedAt) }),
 *     }),
 *   },
 * }
 */
export function saidDate(options: SaidDateOptions): IntentGuard {
  const guard: IntentGuard = ({ event }) => {
    const text = replyText(event);
    if (text === undefined) return false;
    const now =
      typeof options.now === 'function'
        ? options.now()
        : (options.now ?? new Date(String((event as { receivedAt?: unknown }).receivedAt)));
    return matchDate(text, { ...options, now }) !== undefined;
  };
  return Object.defineProperty(guard, 'name', { value: 'saidDate' });
}
