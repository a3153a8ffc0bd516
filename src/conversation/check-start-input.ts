import type { Bot } from '../bot/define-bot.ts';
import { jsonInputProblem } from '../store/json-input-problem.ts';

/** A start input checked: the bot's parsed input, or the field at fault and why. */
export type StartInputCheck =
  | { ok: true; input: unknown }
  | { ok: false; field: string; error: string };

/**
 * Checks the input a conversation of `bot` starts with, as every way of starting one does (the
 * admin API, `replyflow chat`): storable JSON first (no nesting past 32 levels, no lone
 * surrogate), then the bot's `input` schema when it has one, whose parsed value (defaults
 * filled) is the input. The error names the field (`input.at: …`).
 *
 * @example
 * const checked = checkStartInput(appointment, { name: 'Ana' });
 * if (!checked.ok) console.error(checked.error); // input.at: Invalid input: expected string…
 */
export function checkStartInput(bot: Bot, given: unknown): StartInputCheck {
  const problem = jsonInputProblem(given, 'input');
  if (problem) return { ok: false, field: 'input', error: problem };
  const input = given ?? {};
  if (!bot.input) return { ok: true, input };
  const parsed = bot.input.safeParse(input);
  if (parsed.success) return { ok: true, input: parsed.data };
  const issue = parsed.error.issues[0];
  const field = ['input', ...(issue?.path ?? []).map(String)].join('.');
  return { ok: false, field, error: `${field}: ${issue?.message ?? 'is invalid'}` };
}
