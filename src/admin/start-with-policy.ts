import { createHash } from 'node:crypto';
import type { CountryCode } from 'libphonenumber-js/max';
import { z } from 'zod';
import type { LocationConfig } from '../app/config.ts';
import type { BotRegistry } from '../bot/bot-registry.ts';
import { startConversation } from '../conversation/start-conversation.ts';
import { ValidationError } from '../errors.ts';
import type { Logger } from '../observability/logger.ts';
import { maskPhone } from '../observability/mask-phone.ts';
import { normalizePhone } from '../provider/normalize-phone.ts';
import { jsonInputProblem } from '../store/json-input-problem.ts';
import type { Store } from '../store/store.ts';
import { requestLocation } from './request-location.ts';

/** What `POST /admin/conversations` and `replyflow conversations start` take. */
export const startRequestSchema = z.object({
  location: z.string().min(1).optional(),
  bot: z.string().min(1),
  phone: z.string().min(1),
  input: z.unknown().optional(),
  /** Idempotency key: a second start with the same key (for the same phone) starts nothing new. */
  key: z.string().min(1).max(200).optional(),
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
      status: 400 | 404 | 409;
      body: { error: string; field?: string; activeBot?: string; message?: string };
    };

/**
 * Starts a bot's conversation with a phone, in production: checks the location, the bot, the
 * phone (normalised; masked in errors) and `input` (against the bot's `input` schema), applies
 * the bot's `startPolicy` when the phone has an active conversation, and is idempotent by `key`.
 * A phone that opted out gets `409 { error: 'opted_out' }`, logged: it is sent nothing until it
 * texts START.
 */
export async function startWithPolicy(
  deps: StartDeps,
  request: StartRequest,
): Promise<StartAnswer> {
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
        ? 'is not a mobile number'
        : 'is not a valid phone number';
    return {
      status: 400,
      body: {
        error: `phone '${maskPhone(request.phone)}' ${reason}: write it with its country prefix (+33 6 12 34 56 78)`,
        field: 'phone',
      },
    };
  }
  // Checked before anything reads it: a deep or malformed input would fail the store (DESIGN §2.8).
  const inputProblem = jsonInputProblem(request.input, 'input');
  if (inputProblem) return { status: 400, body: { error: inputProblem, field: 'input' } };
  let input: unknown = request.input ?? {};
  if (bot.input) {
    const parsed = bot.input.safeParse(input);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const field = ['input', ...(issue?.path ?? []).map(String)].join('.');
      return { status: 400, body: { error: `${field}: ${issue?.message ?? 'is invalid'}`, field } };
    }
    input = parsed.data;
  }
  const key = { location: location.name, phone };
  const id = request.key === undefined ? undefined : startId(location.name, phone, request.key);
  const answer = (
    policy: 'start' | 'replace' | 'queue',
    startedId: string,
    duplicate: boolean,
  ): StartAnswer => ({
    status: 202,
    body: { id: startedId, location: location.name, bot: bot.id, phone, policy, duplicate },
  });
  // The same key again: the first start is waiting in the mailbox or was applied; nothing new.
  // Checked before the opt-out: a retry of a start accepted before the STOP gets the answer the
  // first request got (the caller's retry loop must see the same result, not a new refusal);
  // the opt-out already ended that conversation, as its result shows.
  if (id !== undefined) {
    const eventId = `${id}:0`;
    const [pending, applied] = await Promise.all([
      deps.store.pendingEvents(key),
      deps.store.listApplied(key),
    ]);
    const first = pending.find((event) => event.id === eventId) ?? undefined;
    if (first || applied.includes(eventId)) {
      const policy = first?.kind === 'start' && first.policy ? first.policy : 'start';
      return answer(policy, id, true);
    }
  }
  const [active, suppressed] = await Promise.all([
    deps.store.getConversation(key),
    deps.store.isSuppressed(key),
  ]);
  // The suppression list is what the engine drops a start on (an imported opt-out has no
  // record). A STOP still waiting in the mailbox is seen once the webhook marked it; a start
  // accepted before is dropped by the engine, sending nothing.
  if (suppressed) {
    const masked = maskPhone(phone);
    deps.logger.info(
      { location: location.name, bot: bot.id, conversation: masked },
      'admin start refused: the phone opted out',
    );
    return {
      status: 409,
      body: {
        error: 'opted_out',
        message: `phone ${masked} opted out (STOP): nothing is sent to it until the person texts START`,
      },
    };
  }
  const policy = active?.status === 'active' ? (bot.startPolicy ?? 'skip') : 'start';
  if (policy === 'skip') {
    return {
      status: 409,
      body: {
        error: `phone ${maskPhone(phone)} has an active conversation with bot '${active!.botId}' (bot '${bot.id}' has startPolicy 'skip')`,
        activeBot: active!.botId,
      },
    };
  }
  const started = await startConversation(deps.store, {
    location: location.name,
    phone,
    botId: bot.id,
    input,
    id,
    now: deps.now(),
    ...(policy !== 'start' && { policy }),
  });
  return answer(policy, started, false);
}

/** The start's notification id for a key: scoped to the conversation, and of bounded length. */
function startId(location: string, phone: string, key: string): string {
  const hash = createHash('sha256').update(`${location}\u0000${phone}\u0000${key}`).digest('hex');
  return `start:key:${hash.slice(0, 32)}`;
}
