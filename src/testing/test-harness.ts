import type { BotRegistry } from '../bot/bot-registry.ts';
import type { Bot } from '../bot/define-bot.ts';
import type { ComplianceConfig } from '../compliance/compliance-config.ts';
import type { Logger } from '../observability/logger.ts';
import type { ManualClock } from '../scheduler/create-manual-clock.ts';
import type { Store } from '../store/store.ts';
import type { TestPhone } from './test-phone.ts';

/** The options of `createTestHarness`. */
export interface TestHarnessOptions {
  /** The bots to serve: `defineBot` values, or the folder to load them from (`'./bots'`). */
  bots: readonly Bot[] | string;
  /** Where the clock starts: a `Date`, an ISO date-time, or ms since the epoch. Default: now. */
  now?: Date | string | number;
  /** The location's name. Default `'default'`. */
  location?: string;
  /** Country of numbers written in national form (`06 12 34 56 78`). Default `'FR'`. */
  defaultCountry?: string;
  /** How long to wait for the engine to become idle before failing. Default 10 000 ms. */
  idleTimeoutMs?: number;
  /** replyflow's logger. Default: silent. */
  logger?: Logger;
  /**
   * The location's `compliance` section, as in a config file (docs/compliance.md): quiet hours
   * in their time zone, the loop guard, keywords and texts, the contacts group. Default: the
   * defaults (no quiet hours, 10 messages a minute per phone), and as `group` a group
   * "Subscribers" the harness makes in the emulated service (`harness.contactGroup`).
   *
   * @example
   * createTestHarness({
   *   bots: [survey],
   *   now: '2026-12-01T21:30:00+01:00',
   *   compliance: {
   *     quietHours: { timeZone: 'Europe/Paris', window: '21:00-08:00' },
   *     loopGuard: { max: 3, window: '1m' },
   *   },
   * });
   */
  compliance?: ComplianceConfig;
}

/** A running engine for tests, driven by hand. See `createTestHarness`. */
export interface TestHarness {
  /** The location's name. */
  readonly location: string;
  /** The manual clock the engine, the timers and the emulator read. */
  readonly clock: ManualClock;
  /** The memory store, for looking deeper than the phone's methods. */
  readonly store: Store;
  /** The bots served. */
  readonly registry: BotRegistry;
  /** Base URL of the emulated service (`http://127.0.0.1:PORT`); its control API is under `/_emulator`. */
  readonly emulatorUrl: string;
  /** A person's handset: `+33 6 12 34 56 78`, `0612345678` and `33612345678` are the same phone. */
  phone(number: string): TestPhone;
  /** Starts a bot's conversation with a phone, as a campaign would, and waits for its first messages. */
  start(bot: Bot | string, phone: string | TestPhone, input?: unknown): Promise<void>;
  /**
   * Moves the clock forward (`'24h'`, `'90m'`, or ms). Timers fire in order, each at its own
   * due time, and the engine answers each before the next: a reminder due at +24 h that sets
   * another for +48 h sees both fire with `advance('3d')`. Resolves once the engine is idle.
   */
  advance(by: string | number): Promise<void>;
  /**
   * The next SMS to the phone ends `errored` with this reason, through the emulator's control
   * API (`POST /_emulator/next-failures`): `EXPIRED` (sent, then not delivered),
   * `invalid_phone_number` or `insufficient_balance` (never sent, price 0), the service's known
   * reasons. The bot hears it as an `sms.status` event.
   */
  failNextDelivery(phone: string | TestPhone, reason: string): Promise<void>;
  /**
   * The contacts the emulated service holds for the phone (`contactPhoneNumber`), in every
   * group, each with its `groupId` and the fields a bot's `updateContact` (or an opt-out) wrote.
   */
  contacts(phone: string | TestPhone): Promise<Array<Record<string, unknown>>>;
  /**
   * The id of the location's contacts group (`compliance.group`): the one given in the options,
   * or "Subscribers", made in the emulated service when the harness starts.
   */
  readonly contactGroup: number;
  /** Resolves once no event, send or status is on its way (see `waitUntilIdle`). */
  waitUntilIdle(): Promise<void>;
  /** Stops the engine and the emulator. */
  close(): Promise<void>;
}
