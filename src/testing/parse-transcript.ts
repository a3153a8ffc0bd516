import { parseDuration } from '../bot/parse-duration.ts';
import { normalizePhone } from '../provider/normalize-phone.ts';

/** What a `<` line expects: the exact text, or a regular expression. */
export type ExpectedText = { kind: 'exact'; text: string } | { kind: 'regex'; regex: RegExp };

/** One line of a transcript that does something, with its line number (1-based). */
export type TranscriptStep = { line: number } & (
  | { kind: 'phone'; phone: string }
  | { kind: 'start'; bot: string; input: unknown }
  | { kind: 'send'; text: string }
  | { kind: 'expect'; expected: ExpectedText }
  | { kind: 'advance'; by: string; ms: number }
  | { kind: 'fail-next-delivery'; reason: string }
  | { kind: 'state'; state: string }
  | { kind: 'result'; fields: Record<string, unknown> }
  | { kind: 'contact'; fields: Record<string, unknown> | null }
);

/** A parsed transcript: where the clock starts (`@now`) and the steps in order. */
export interface Transcript {
  file: string;
  /** `@now`, ms since the epoch; undefined for the real time at the start. */
  now: number | undefined;
  steps: TranscriptStep[];
}

/** A transcript that cannot be read; the message names each bad line as `file:line`. */
export class TranscriptSyntaxError extends Error {
  constructor(readonly problems: string[]) {
    super(`transcript syntax:\n  - ${problems.join('\n  - ')}`);
    this.name = 'TranscriptSyntaxError';
  }
}

/** The person when a transcript names none. */
export const defaultTranscriptPhone = '33600000001';

/**
 * Reads a transcript (see docs/writing-bots.md, "Transcripts"). Each line is a comment (`#`),
 * blank, a message (`> ` the person sends, `< ` the bot's next SMS, exactly or `/regex/flags`),
 * a continuation (`| ` adds a new line to the message above), or a directive (`@phone`, `@now`,
 * `@start`, `@advance`, `@fail-next-delivery`, `@state`, `@result`, `@contact`). Every problem is
 * reported at once.
 *
 * @example
 * parseTranscript('@start appointment {"name":"Ana"}\n< /^Bonjour Ana/\n> oui\n@state ended', 'ana.transcript');
 */
export function parseTranscript(source: string, file: string, defaultCountry = 'FR'): Transcript {
  const problems: string[] = [];
  const steps: TranscriptStep[] = [];
  let now: number | undefined;
  const lines = source.split(/\r?\n/);
  for (const [index, raw] of lines.entries()) {
    const line = index + 1;
    readLine(raw.trim(), line, (message) => problems.push(`${file}:${line}: ${message}`));
  }
  if (problems.length > 0) throw new TranscriptSyntaxError(problems);
  return { file, now, steps };

  function readLine(text: string, line: number, fail: (message: string) => void): void {
    if (text === '' || text.startsWith('#')) return;
    if (text.startsWith('|')) {
      const previous = steps.at(-1);
      const more = text.slice(1).replace(/^ /, '');
      if (previous?.kind === 'send') previous.text += `\n${more}`;
      else if (previous?.kind === 'expect' && previous.expected.kind === 'exact') {
        previous.expected.text += `\n${more}`;
      } else fail('a `|` line continues the `>` or `<` line just above it');
      return;
    }
    if (text.startsWith('>') || text.startsWith('<')) {
      const body = text.slice(1).trim();
      if (body === '') return void fail(`\`${text[0]}\` needs the text of the message`);
      if (text[0] === '>') return void steps.push({ line, kind: 'send', text: body });
      const expected = expectedText(body);
      if (typeof expected === 'string') return void fail(expected);
      return void steps.push({ line, kind: 'expect', expected });
    }
    if (!text.startsWith('@')) {
      return void fail(
        `cannot read "${text}": a line starts with >, <, |, @ or # (comment), or is blank`,
      );
    }
    const [directive = '', ...rest] = text.split(/\s+/);
    const argument = text.slice(directive.length).trim();
    const needs = (what: string) => {
      if (argument === '') fail(`${directive} needs ${what}`);
      return argument === '';
    };
    switch (directive) {
      case '@phone': {
        if (needs('a phone number, such as +33 6 12 34 56 78')) return;
        try {
          steps.push({
            line,
            kind: 'phone',
            phone: normalizePhone(argument, { defaultCountry: defaultCountry as 'FR' }),
          });
        } catch (error) {
          fail(`@phone ${argument}: ${(error as Error).message}`);
        }
        return;
      }
      case '@now': {
        if (needs('an ISO date-time, such as 2026-12-01T09:00:00+01:00')) return;
        if (steps.some((step) => step.kind !== 'phone')) {
          return void fail('@now sets the clock before the first step: move it above');
        }
        const ms = Date.parse(argument);
        if (!Number.isFinite(ms)) return void fail(`@now ${argument} is not an ISO date-time`);
        now = ms;
        return;
      }
      case '@start': {
        if (needs('a bot id, then optional input JSON')) return;
        const bot = rest[0]!;
        const json = argument.slice(bot.length).trim();
        let input: unknown = {};
        if (json !== '') {
          try {
            input = JSON.parse(json);
          } catch (error) {
            return void fail(`@start ${bot}: the input is not JSON (${(error as Error).message})`);
          }
        }
        return void steps.push({ line, kind: 'start', bot, input });
      }
      case '@advance': {
        if (needs('a duration, such as 24h, 90m or 3d')) return;
        const ms = parseDuration(argument);
        if (ms === undefined)
          return void fail(`@advance ${argument} is not a duration such as 24h, 90m or 3d`);
        return void steps.push({ line, kind: 'advance', by: argument, ms });
      }
      case '@fail-next-delivery':
        if (needs('a status reason, such as EXPIRED')) return;
        return void steps.push({ line, kind: 'fail-next-delivery', reason: argument });
      case '@state':
        if (needs('a state (a dotted path when nested), or `ended`')) return;
        return void steps.push({ line, kind: 'state', state: argument });
      case '@result': {
        if (needs('a JSON object of recorded fields, such as {"score":9}')) return;
        let fields: unknown;
        try {
          fields = JSON.parse(argument);
        } catch (error) {
          return void fail(`@result: not JSON (${(error as Error).message})`);
        }
        if (typeof fields !== 'object' || fields === null || Array.isArray(fields)) {
          return void fail('@result takes a JSON object of recorded fields, such as {"score":9}');
        }
        return void steps.push({ line, kind: 'result', fields: fields as Record<string, unknown> });
      }
      case '@contact': {
        const example = '{"contactSubscribed":true}, or none';
        if (needs(`the contact's fields as a JSON object, such as ${example}`)) return;
        if (argument === 'none') return void steps.push({ line, kind: 'contact', fields: null });
        let fields: unknown;
        try {
          fields = JSON.parse(argument);
        } catch (error) {
          return void fail(`@contact: not JSON (${(error as Error).message})`);
        }
        if (typeof fields !== 'object' || fields === null || Array.isArray(fields)) {
          return void fail(
            `@contact takes a JSON object of the contact's fields, such as ${example}`,
          );
        }
        return void steps.push({
          line,
          kind: 'contact',
          fields: fields as Record<string, unknown>,
        });
      }
      default:
        fail(
          `unknown directive ${directive}: use @phone, @now, @start, @advance, @fail-next-delivery, @state, @result or @contact`,
        );
    }
  }
}

/** `/regex/flags` is a regular expression; anything else is the exact text. */
function expectedText(body: string): ExpectedText | string {
  const regex = /^\/(.+)\/([a-z]*)$/s.exec(body);
  if (!regex) return { kind: 'exact', text: body };
  try {
    return { kind: 'regex', regex: new RegExp(regex[1]!, regex[2]) };
  } catch (error) {
    return `${body} is not a valid regular expression: ${(error as Error).message}`;
  }
}
