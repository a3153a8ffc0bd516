import type { CountryCode } from 'libphonenumber-js/max';
import { z } from 'zod';
import type { LocationConfig } from '../app/config.ts';
import type { BotRegistry } from '../bot/bot-registry.ts';
import { checkStartInput } from '../conversation/check-start-input.ts';
import { startConversation } from '../conversation/start-conversation.ts';
import { ValidationError } from '../errors.ts';
import type { Logger } from '../observability/logger.ts';
import { quotedPhone } from '../observability/mask-phone.ts';
import { normalizePhone } from '../provider/normalize-phone.ts';
import { jsonInputProblem } from '../store/json-input-problem.ts';
import type { Store } from '../store/store.ts';
import { requestLocation } from './request-location.ts';
import { maxStartKeyLength, startByKey, startKeyProblem } from './start-by-key.ts';
import { busyAnswer, optedOutAnswer } from './start-refusals.ts';

/** What `POST /admin/conversations` and `replyflow conversations start` take. */
export const startRequestSchema = z.object({
  location: z.string().min(1).optional(),
  bot: z.string().min(1),
  phone: z.string().min(1),
  input: z.unknown().optional(),
  /**
   * Durable idempotency key (kept at least REPLYFLOW_RETENTION): the same request again starts
   * nothing new, a new time reschedules, `DELETE /admin/conversations/scheduled/:key` cancels.
   */
  key: z.string().min(1).max(maxStartKeyLength).optional(),
  /** When to start: an ISO instant, or a wall time in `timeZone` (needs `key`). */
  at: z.string().min(1).optional(),
  /** `input.<field>` holding a date; the start is at that date moved by `offset` (needs `key`). */
  relativeTo: z.string().min(1).optional(),
  /** From `relativeTo`: `-24h`, `+30m` (a duration), `-1d`, `-2w` (calendar days in `timeZone`). */
  offset: z.string().min(1).optional(),
  /** Local hours the start may fire in, `09:00-19:00`; a time outside waits for the opening. */
  deliveryWindow: z.string().min(1).optional(),
  /** A time already past starts now when at most this late (`6h`); absent: skipped `past_due`. */
  sendIfWithin: z.string().min(1).optional(),
  /** IANA zone of wall times, days and the window; default the location's quiet hours' zone, or UTC. */
  timeZone: z.string().min(1).optional(),
});
export type StartRequest = z.infer<typeof startRequestSchema>;

export interface StartDeps {
  store: Store;
  registry: BotRegistry;
  locations: readonly LocationConfig[];
  now(): number;
  /** Where a refused start to an opted-out phone is logged (info, phone masked). */
  logger: Logger;
}

/** An HTTP-shaped answer, so the admin route sends it as is and the CLI prints it. */
export type StartAnswer =
  | {
      status: 202;
      body: {
        id: string;
        location: string;
        bot: string;
        phone: string;
        policy: 'start' | 'replace' | 'queue';
        duplicate: boolean;
      };
    }
  | {
      status: 202;
      /** A scheduled start (`at`, `relativeTo` or `deliveryWindow`): its time, on the zone's clock. */
      body: {
        id: string;
        location: string;
        bot: string;
        phone: string;
        scheduled: true;
        at: string;
        state: string;
        /** Why a duplicate's start was skipped or failed. */
        reason?: string;
        duplicate: boolean;
        rescheduled: boolean;
      };
    }
  | {
      status: 400 | 404 | 409;
      body: { error: string; field?: string; activeBot?: string; message?: string };
    };

/**
 * Starts a bot's conversation with a phone, in production: checks the location, the bot, the
 * phone (normalised; masked in errors) and `input` (against the bot's `input` schema), and
 * applies the bot's `startPolicy` when the phone has an active conversation. With a `key` the
 * start is a record kept for its whole life (`startByKey`): now, or at `at` / `relativeTo`, a
 * retry a duplicate, a new time a reschedule. A phone that opted out gets
 * `409 { error: 'opted_out' }`, logged: it is sent nothing until it texts START.
 */
export async function startWithPolicy(
  deps: StartDeps,
  request: StartRequest,
): Promise<StartAnswer> {
  // Checked before anything reads or stores them, as `input` is below (DESIGN §2.8).
  for (const field of textFields) {
    const value = request[field];
    if (value === undefined) continue;
    const problem = field === 'key' ? startKeyProblem(value) : jsonInputProblem(value, field);
    if (problem) return { status: 400, body: { error: problem, field } };
  }
  const location = requestLocation(deps.locations, request.location);
  if (typeof location === 'string')
    return { status: 400, body: { error: location, field: 'location' } };
  const bot = deps.registry.bots.get(request.bot);
  if (!bot) {
    const loaded = [...deps.registry.bots.keys()].join(', ') || '(none)';
    return {
      status: 404,
      body: { error: `no bot '${request.bot}'; loaded: ${loaded}`, field: 'bot' },
    };
  }
  let phone: string;
  try {
    phone = normalizePhone(request.phone, {
      defaultCountry: location.defaultCountry as CountryCode | undefined,
    });
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    const reason =
      error.code === 'NOT_A_MOBILE_NUMBER'
        ? 'is not a mobile number: an SMS conversation needs a mobile (a landline cannot answer)'
        : 'is not a valid phone number: write it with its country prefix (+33 6 12 34 56 78)';
    return {
      status: 400,
      body: { error: `phone ${quotedPhone(request.phone)} ${reason}`, field: 'phone' },
    };
  }
  // Checked before anything reads it: a deep or malformed input would fail the store (DESIGN §2.8),
  // then against the bot's schema.
  const checked = checkStartInput(bot, request.input);
  if (!checked.ok) return { status: 400, body: { error: checked.error, field: checked.field } };
  const { input } = checked;
  if (request.key === undefined && scheduleFields.some((field) => request[field] !== undefined)) {
    return {
      status: 400,
      body: {
        error:
          'key: a scheduled start needs a key, to be found again (a retry, a new date, a cancel)',
        field: 'key',
      },
    };
  }
  if (request.key !== undefined) {
    return startByKey(deps, {
      location,
      bot,
      phone,
      input,
      request: { ...request, key: request.key },
    });
  }
  const key = { location: location.name, phone };
  const [active, suppressed] = await Promise.all([
    deps.store.getConversation(key),
    deps.store.isSuppressed(key),
  ]);
  // The suppression list is what the engine drops a start on (an imported opt-out has no
  // record). A STOP still waiting in the mailbox is seen once the webhook marked it; a start
  // accepted before is dropped by the engine, sending nothing.
  const refused = { location: location.name, bot: bot.id, phone };
  if (suppressed) return optedOutAnswer(deps.logger, refused);
  const policy = active?.status === 'active' ? (bot.startPolicy ?? 'skip') : 'start';
  if (policy === 'skip') return busyAnswer(refused, active!.botId);
  const id = await startConversation(deps.store, {
    location: location.name,
    phone,
    botId: bot.id,
    input,
    now: deps.now(),
    ...(policy !== 'start' && { policy }),
  });
  return {
    status: 202,
    body: { id, location: location.name, bot: bot.id, phone, policy, duplicate: false },
  };
}

/** The request's strings besides `input`: each is stored, or decides what is (the key above all). */
const textFields = [
  'location',
  'bot',
  'phone',
  'key',
  'at',
  'relativeTo',
  'offset',
  'deliveryWindow',
  'sendIfWithin',
  'timeZone',
] as const satisfies ReadonlyArray<keyof StartRequest>;

/** What makes a start a scheduled one, kept by its key. */
const scheduleFields = [
  'at',
  'relativeTo',
  'offset',
  'deliveryWindow',
  'sendIfWithin',
  'timeZone',
] as const;
