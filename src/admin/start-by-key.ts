import type { LocationConfig } from '../app/config.ts';
import { parseDuration } from '../bot/parse-duration.ts';
import { canonicalTimeZone } from '../campaigns/canonical-time-zone.ts';
import { scheduleStart } from '../campaigns/schedule-start.ts';
import type { PastPolicy } from '../campaigns/send-time.ts';
import { toZonedIso } from '../campaigns/zoned-iso.ts';
import { ValidationError } from '../errors.ts';
import { jsonInputProblem } from '../store/json-input-problem.ts';
import { busyAnswer, optedOutAnswer } from './start-refusals.ts';
import type { StartAnswer, StartDeps, StartRequest } from './start-with-policy.ts';

/** A checked start with a key: its location, bot, normalised phone and checked input. */
export interface KeyedStart {
  location: LocationConfig;
  bot: { id: string; startPolicy?: 'skip' | 'replace' | 'queue' | undefined };
  phone: string;
  input: unknown;
  request: StartRequest & { key: string };
}

/** The longest `key` a start or a cancel takes. */
export const maxStartKeyLength = 200;

/**
 * Why `key` cannot name a start, or undefined: it is 1 to 200 characters of well-formed text.
 * Checked before anything is read or stored: a lone surrogate would be stored repaired (U+FFFD),
 * and so name another key's start (`k\ud800` would be `k\ufffd`'s duplicate).
 *
 * @example
 * startKeyProblem('k\ud800'); // 'key: is not well-formed text (a lone UTF-16 surrogate)'
 */
export function startKeyProblem(key: string): string | undefined {
  if (key.length === 0 || key.length > maxStartKeyLength) {
    return `key: 1 to ${maxStartKeyLength} characters, not ${key.length}`;
  }
  return jsonInputProblem(key, 'key');
}

/** The send-time spec's field names as the request writes them. */
const requestField: Record<string, string> = { window: 'deliveryWindow', past: 'sendIfWithin' };

/**
 * A start kept as a record for its whole life (`scheduleStart`), fired by the campaign runner:
 * at `at`, at `relativeTo` + `offset`, or now (within a second) when neither is given. A start
 * now keeps the synchronous refusals of an immediate start (409 when the phone is busy and the
 * bot's startPolicy is skip) and its answer's shape; a scheduled one answers `scheduled: true`
 * with its time and state.
 */
export async function startByKey(deps: StartDeps, start: KeyedStart): Promise<StartAnswer> {
  const { request, location, bot, phone } = start;
  const refuse = (error: string, field: string): StartAnswer => ({
    status: 400,
    body: { error: `${field}: ${error}`, field },
  });
  if (request.at !== undefined && request.relativeTo !== undefined) {
    return refuse('give at or relativeTo, not both', 'relativeTo');
  }
  if (request.offset !== undefined && request.relativeTo === undefined) {
    return refuse('an offset counts from relativeTo: give it too', 'offset');
  }
  let past: PastPolicy = { kind: 'skip' };
  if (request.sendIfWithin !== undefined) {
    const ms = parseDuration(request.sendIfWithin);
    if (ms === undefined) return refuse('write a duration such as 6h, 30m or 1d', 'sendIfWithin');
    past = { kind: 'sendIfWithin', ms };
  }
  const timeZone = request.timeZone ?? location.compliance?.quietHours?.timeZone ?? 'UTC';
  const scheduled =
    request.at !== undefined ||
    request.relativeTo !== undefined ||
    request.deliveryWindow !== undefined;
  const key = { location: location.name, phone };
  const active = scheduled ? null : await deps.store.getConversation(key);
  const policy = active?.status === 'active' ? (bot.startPolicy ?? 'skip') : 'start';
  let answer: Awaited<ReturnType<typeof scheduleStart>>;
  try {
    answer = await scheduleStart(
      deps.store,
      {
        location: location.name,
        bot: bot.id,
        phone,
        input: start.input,
        key: request.key,
        ...(request.at !== undefined && { at: request.at }),
        ...(request.relativeTo !== undefined && { relativeTo: request.relativeTo }),
        ...(request.offset !== undefined && { offset: request.offset }),
        ...(request.deliveryWindow !== undefined && { deliveryWindow: request.deliveryWindow }),
        timeZone: canonicalTimeZone(timeZone) ?? timeZone,
        past,
        ratePerSecond: location.rateLimitPerSecond ?? 10,
        ...(policy === 'skip' && active && { busyWith: active.botId }),
      },
      deps.now(),
    );
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    const field = requestField[error.field ?? ''] ?? error.field ?? 'body';
    return { status: 400, body: { error: `${field}: ${error.message}`, field } };
  }
  switch (answer.outcome) {
    case 'scheduled':
    case 'rescheduled':
    case 'duplicate': {
      const common = {
        id: answer.id,
        location: location.name,
        bot: bot.id,
        phone,
      };
      const duplicate = answer.outcome === 'duplicate';
      if (!scheduled) {
        // A retry cannot know the policy the first request met: `start`, as a start's default.
        return {
          status: 202,
          body: { ...common, policy: duplicate || policy === 'skip' ? 'start' : policy, duplicate },
        };
      }
      return {
        status: 202,
        body: {
          ...common,
          scheduled: true,
          at: toZonedIso(answer.at, timeZone),
          state: answer.state,
          ...(answer.reason !== undefined && { reason: answer.reason }),
          duplicate,
          rescheduled: answer.outcome === 'rescheduled',
        },
      };
    }
    case 'opted_out':
      return optedOutAnswer(deps.logger, { location: location.name, bot: bot.id, phone });
    case 'active_conversation':
      return busyAnswer({ location: location.name, bot: bot.id, phone }, answer.activeBot);
    case 'bad_date':
      return { status: 400, body: { error: answer.message, field: answer.field } };
    default:
      return { status: 409, body: { error: answer.outcome, message: answer.message } };
  }
}
