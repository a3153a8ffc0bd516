import type { AnyStateMachine, StateValue } from 'xstate';
import type { ZodType } from 'zod';
import { unclaimableWords } from '../compliance/default-keywords.ts';
import { normalizeComplianceText } from '../compliance/normalize-compliance-text.ts';
import { errorCodes, ReplyflowError } from '../errors.ts';
import { machineContentVersion, machineVersion } from './machine-version.ts';
import { normalizeKeyword } from './normalize-keyword.ts';
import { parseDuration } from './parse-duration.ts';
import { provideDurationDelays } from './provide-duration-delays.ts';

/**
 * A conversation's machine snapshot as replyflow stores it: XState's persisted snapshot
 * (`machine.getPersistedSnapshot`), as JSON. `migrate` reads it and returns one the new machine
 * can resume.
 */
export interface PersistedBotSnapshot {
  /** The state: its name (`'asking'`), or nested states as an object (`{ booking: 'date' }`). */
  value: StateValue;
  /** The machine's context when it was saved (JSON: no functions, dates as strings). */
  context: Record<string, unknown>;
  /** `'active'` for a conversation that is running. */
  status: 'active' | 'done' | 'error' | 'stopped';
  /** XState's other fields (`historyValue`, `children`, `output`…): keep them as they are. */
  [field: string]: unknown;
}

/**
 * What `migrate` receives: the stored snapshot, the version it was made with and the version of
 * the bot now (see `Bot.version`: they differ when the machine's structure changed).
 *
 * @example
 * migrate: ({ snapshot }) =>
 *   // `question2` was renamed `score`: move those who were there, keep the others.
 *   snapshot.value === 'question2' ? { ...snapshot, value: 'score' } : snapshot,
 */
export interface MigrationInput {
  snapshot: PersistedBotSnapshot;
  fromVersion: string;
  toVersion: string;
}

/** The options of `defineBot`. */
export interface BotOptions<TMachine extends AnyStateMachine = AnyStateMachine> {
  /** Unique id of the bot; stored with every conversation. Letters, digits, `-` and `_`. */
  id: string;
  /** An XState v5 machine made with `setup({...}).createMachine({...})`. */
  machine: TMachine;
  /**
   * Your own version label (`'2'`, `'2026-12-spring-survey'`), part of the bot's version with
   * the hash of the machine's structure. Bump it to make a new version on purpose: live
   * conversations then go through `migrate`, or end (see `machineVersion`).
   */
  version?: string;
  /** Keywords that start this bot when a person with no active conversation texts one. */
  triggers?: { keywords: readonly string[] };
  /** This bot answers messages no other bot claims (one fallback bot per process). */
  fallback?: boolean;
  /**
   * Turns a snapshot stored by an earlier version of the machine into one this version can
   * resume; return `null` to end that conversation instead. Without it, conversations of an
   * older version (another structure: states, transitions, guard and action names, `after`
   * delays) end with the code `version_changed`. A change of texts or code keeps the version.
   */
  migrate?: (input: MigrationInput) => PersistedBotSnapshot | null | undefined;
  /**
   * Inactivity after which the conversation expires, counted from the last reply or start, or
   * the last step that sent or changed state (not a delivery report, nor a timer that did
   * nothing): the machine receives `conversation.expire` (it may still `reply`), then the
   * conversation ends. A duration such as
   * `'7d'` or `'36h'`, milliseconds, or `false` for never. Default `'7d'`.
   */
  expiresAfter?: string | number | false;
  /**
   * End the conversation when a message it sent fails with `invalid_phone_number` (after the
   * machine has received that `sms.status`). Default true; set false to handle it yourself.
   */
  endOnInvalidNumber?: boolean;
  /**
   * A zod schema of the `input` a start must give (`POST /admin/conversations`,
   * `replyflow conversations start`): a start whose input does not match is refused with the
   * field named, and the machine receives the parsed value.
   *
   * @example
   * input: z.object({ name: z.string(), at: z.iso.datetime({ offset: true }), place: z.string() }),
   */
  input?: ZodType;
  /**
   * What a start does when the phone already has an active conversation: `skip` (default: the
   * start is refused, 409 with the active bot's id), `replace` (the active conversation ends,
   * with reason `REPLACED`, and this one starts in the same step), or `queue` (this one starts
   * when the active one ends).
   */
  startPolicy?: StartPolicy;
  /**
   * Compliance words this bot answers itself while one of its conversations is active with the
   * phone (an appointment bot's CANCEL). Elsewhere they keep their compliance meaning. STOP and
   * ARRET (and STOP ALL, STOPALL, STOP SMS, ARRETER) cannot be claimed: they always opt out.
   *
   * @example
   * defineBot({ id: 'appointment', machine, claims: ['CANCEL', 'ANNULER'] });
   */
  claims?: readonly string[];
  /**
   * A start input that shows what this bot expects (`conversation.start`'s `input`): the dev
   * phone prefills its start form with it (and starts with it when given no input),
   * `replyflow chat` shows it when an input is refused, and `replyflow bots lint` starts a bot
   * no transcript runs with it. A function is called with the current time each time it is
   * read (the dev clock's in `replyflow dev`, the harness's in `bots lint`), for an input that
   * holds a date and must stay ahead of the clock.
   *
   * @example
   * exampleInput: { lang: 'fr', remindAfter: '24h' }
   * @example
   * // An appointment the day after tomorrow, by whatever clock reads it.
   * exampleInput: (now) => ({
   *   name: 'Ana',
   *   at: new Date(now.getTime() + 48 * 3_600_000).toISOString(),
   *   place: '12 rue de la Paix',
   * }),
   */
  exampleInput?: ExampleInput;
}

/**
 * See `BotOptions.exampleInput`: a JSON value, or a function of the current time that returns
 * one (called with the clock that reads it).
 */
export type ExampleInput =
  | ((now: Date) => unknown)
  | Readonly<Record<string, unknown>>
  | readonly unknown[]
  | string
  | number
  | boolean
  | null;

/**
 * A bot's example input at `now`: `exampleInput` called with it when it is a function, else as
 * written; undefined for a bot without one.
 *
 * @example
 * exampleInputAt(bot, new Date(clock.now())); // { name: 'Ana', at: '…', place: '…' }
 */
export function exampleInputAt(bot: Pick<BotOptions, 'exampleInput'>, now: Date): unknown {
  return typeof bot.exampleInput === 'function' ? bot.exampleInput(now) : bot.exampleInput;
}

/** See `BotOptions.startPolicy`. */
export type StartPolicy = 'skip' | 'replace' | 'queue';

/** A bot, ready to be served: its options plus the normalised keywords and the version hash. */
export interface Bot<TMachine extends AnyStateMachine = AnyStateMachine>
  extends Omit<BotOptions<TMachine>, 'claims'> {
  readonly kind: 'replyflow.bot';
  /**
   * The explicit `version` and the hash of the machine's structure (`'2+3f9a0c1b2d4e'`, or the
   * hash alone; `machineVersion`): a snapshot made with another version is migrated or ended. A
   * change of texts, of the code of actions and guards or of delays' values keeps it.
   */
  readonly version: string;
  /**
   * The explicit `version` and the hash of everything the machine does, content included
   * (`machineContentVersion`): which content a version has, and the version conversations saved
   * before versions were structural carry, which still resume.
   */
  readonly contentVersion: string;
  readonly keywords: readonly string[];
  /** `expiresAfter` in milliseconds; undefined for never. */
  readonly expiresAfterMs: number | undefined;
  /** The claimed compliance words, normalised as the compliance step matches them (`cancel`). */
  readonly claims: ReadonlySet<string>;
}

/**
 * Declares a bot. Export it as the default export of a file in `bots/`.
 *
 * @example
 * import { setup } from 'xstate';
 * import { defineBot, reply, endConversation, type BotEvent } from 'replyflow';
 *
 * export default defineBot({
 *   id: 'opt-in',
 *   triggers: { keywords: ['JOIN'] },
 *   machine: setup({ types: { events: {} as BotEvent } }).createMachine({
 *     initial: 'asking',
 *     states: {
 *       asking: {
 *         entry: reply('Reply YES to get our news by SMS.'),
 *         on: { 'sms.reply': { target: 'done', actions: reply('Thanks, you are in.') } },
 *       },
 *       done: { type: 'final' },
 *     },
 *   }),
 * });
 */
export function defineBot<TMachine extends AnyStateMachine>(
  options: BotOptions<TMachine>,
): Bot<TMachine> {
  if (!/^[A-Za-z0-9_-]+$/.test(options.id ?? '')) {
    throw new ReplyflowError(
      errorCodes.BOT_DEFINITION_INVALID,
      `bot id '${options.id}' is invalid: use letters, digits, - and _`,
    );
  }
  if (typeof options.machine?.transition !== 'function' || !options.machine.root) {
    throw new ReplyflowError(
      errorCodes.BOT_DEFINITION_INVALID,
      `bot '${options.id}': machine must be an XState v5 machine made with setup().createMachine()`,
    );
  }
  if (
    options.startPolicy !== undefined &&
    !['skip', 'replace', 'queue'].includes(options.startPolicy)
  ) {
    throw new ReplyflowError(
      errorCodes.BOT_DEFINITION_INVALID,
      `bot '${options.id}': startPolicy '${options.startPolicy}' is not one of 'skip', 'replace' or 'queue'`,
    );
  }
  if (options.input !== undefined && typeof options.input?.safeParse !== 'function') {
    throw new ReplyflowError(
      errorCodes.BOT_DEFINITION_INVALID,
      `bot '${options.id}': input must be a zod schema such as z.object({ at: z.string() })`,
    );
  }
  const keywords = (options.triggers?.keywords ?? []).map((word) => {
    const normalized = normalizeKeyword(word);
    if (!normalized) {
      throw new ReplyflowError(
        errorCodes.BOT_DEFINITION_INVALID,
        `bot '${options.id}': keyword '${word}' has no letters or digits`,
      );
    }
    return normalized;
  });
  return {
    ...options,
    expiresAfterMs: expiryOf(options),
    machine: provideDurationDelays(options.id, options.machine),
    kind: 'replyflow.bot',
    version: labelled(options.version, machineVersion(options.machine)),
    contentVersion: labelled(options.version, machineContentVersion(options.machine)),
    // 'ECHO' and 'écho' fold to the same keyword.
    keywords: [...new Set(keywords)],
    claims: claimsOf(options),
  };
}

/** `'2+3f9a0c1b2d4e'` with an explicit version, the hash alone without. */
function labelled(label: string | undefined, hash: string): string {
  return label ? `${label}+${hash}` : hash;
}

function claimsOf(options: BotOptions): ReadonlySet<string> {
  const claims = new Set<string>();
  for (const word of options.claims ?? []) {
    const normalized = normalizeComplianceText(String(word));
    if (!normalized) {
      throw new ReplyflowError(
        errorCodes.BOT_DEFINITION_INVALID,
        `bot '${options.id}': claimed word '${word}' has no letters or digits`,
      );
    }
    if (unclaimableWords.has(normalized)) {
      throw new ReplyflowError(
        errorCodes.BOT_DEFINITION_INVALID,
        `bot '${options.id}': '${word}' cannot be claimed: STOP and ARRET (and STOP ALL, STOPALL, STOP SMS, ARRETER) always opt the phone out; remove it from claims`,
      );
    }
    claims.add(normalized);
  }
  return claims;
}

function expiryOf(options: BotOptions): number | undefined {
  const value = options.expiresAfter ?? '7d';
  if (value === false) return undefined;
  const ms = typeof value === 'number' ? value : parseDuration(value);
  if (ms === undefined || !(ms > 0)) {
    throw new ReplyflowError(
      errorCodes.BOT_DEFINITION_INVALID,
      `bot '${options.id}': expiresAfter '${value}' is not a duration such as '7d' or '36h', a number of ms, or false`,
    );
  }
  return ms;
}

/** True for a value made by `defineBot`. */
export function isBot(value: unknown): value is Bot {
  return typeof value === 'object' && value !== null && (value as Bot).kind === 'replyflow.bot';
}
