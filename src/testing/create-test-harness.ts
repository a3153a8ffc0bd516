import { randomBytes } from 'node:crypto';
import { pino } from 'pino';
import { loadConfig } from '../app/config.ts';
import { registerWebhooks } from '../app/register-webhooks.ts';
import { startReplyflow } from '../app/start-replyflow.ts';
import { createBotRegistry } from '../bot/bot-registry.ts';
import { loadBots } from '../bot/load-bots.ts';
import { parseDuration } from '../bot/parse-duration.ts';
import { type ComplianceConfig, complianceConfigSchema } from '../compliance/compliance-config.ts';
import { startConversation } from '../conversation/start-conversation.ts';
import { startEmulator } from '../emulator/start-emulator.ts';
import { createMessagingClient } from '../provider/messaging-client.ts';
import { normalizePhone } from '../provider/normalize-phone.ts';
import { createManualClock } from '../scheduler/create-manual-clock.ts';
import { createMemoryStore } from '../store/memory/create-memory-store.ts';
import { advanceThroughTimers } from './advance-through-timers.ts';
import type { TestHarness, TestHarnessOptions } from './test-harness.ts';
import { createTestPhone, OPENING_SMS, type TestPhone } from './test-phone.ts';
import { waitUntilIdle } from './wait-until-idle.ts';

/**
 * Runs the real engine (the worker, the sender and the timer scheduler, wired as
 * `replyflow dev` and `replyflow start` wire them) on the memory store, against the emulated
 * messaging service on a random loopback port, with a manual clock. Every SMS goes through
 * `POST /sms`, every reply and delivery status comes back as a webhook notification.
 *
 * @example
 * import { afterEach, expect, it } from 'vitest';
 * import { createTestHarness, type TestHarness } from 'replyflow/testing';
 * import appointment from '../bots/appointment.ts';
 *
 * let harness: TestHarness;
 * afterEach(() => harness.close());
 *
 * it('confirms on yes', async () => {
 *   harness = await createTestHarness({ bots: [appointment], now: '2026-12-01T09:00:00+01:00' });
 *   const ana = harness.phone('+33 6 12 34 56 78');
 *   await harness.start(appointment, ana, { name: 'Ana' });
 *   expect((await ana.lastMessage())?.body).toMatch(/Ana/);
 *   await ana.send('oui');
 *   expect(await ana.state()).toBe('ended');
 *   await harness.advance('24h');
 * });
 */
export async function createTestHarness(options: TestHarnessOptions): Promise<TestHarness> {
  const location = options.location ?? 'default';
  const defaultCountry = (options.defaultCountry ?? 'FR') as 'FR';
  const registry =
    typeof options.bots === 'string'
      ? await loadBots(options.bots)
      : createBotRegistry(options.bots.map((bot) => ({ bot, file: 'createTestHarness' })));
  const compliance = complianceOf(options.compliance);
  const clock = createManualClock(startTime(options.now));
  const logger = options.logger ?? pino({ level: 'silent' });
  const keyPair = { id: 'harness', secret: 'harness', location };
  const emulator = await startEmulator(
    {
      port: 0,
      keyPairs: [keyPair],
      // Lifecycle steps of 1 ms and 4 ms; the webhook deadline stays long for a loaded machine.
      timeScale: 0.01,
      rateLimitPerSecond: Number.POSITIVE_INFINITY,
      webhookRetry: { timeoutMs: 1_000_000 },
    },
    { clock },
  );
  // The location's contacts group: given, or one made now in the emulated service, as an
  // operator makes theirs, so an opt-in bot's updateContact has somewhere to go.
  const contactGroup =
    compliance?.group ?? (await createGroup(emulator.baseUrl, keyPair, 'Subscribers'));
  const store = createMemoryStore();
  const base = await loadConfig({ LOG_LEVEL: 'silent' });
  const config = {
    ...base,
    locations: [
      {
        name: location,
        providerUrl: emulator.baseUrl,
        apiKeyId: keyPair.id,
        apiKeySecret: keyPair.secret,
        webhookSecret: randomBytes(16).toString('hex'),
        defaultCountry,
        rateLimitPerSecond: 1000,
        compliance: { ...compliance, group: contactGroup },
      },
    ],
    port: 0,
  };
  const app = await startReplyflow({
    config,
    logger,
    store,
    registry,
    clock,
    host: '127.0.0.1',
    sender: { baseDelayMs: 20 },
  }).catch(async (error: unknown) => {
    await emulator.close();
    throw error;
  });
  await registerWebhooks({ ...config, publicUrl: app.url }, app.clients, logger, { store });

  const phones = new Map<string, TestPhone>();
  const openers = new Set<string>();
  const idle = () =>
    waitUntilIdle({
      store,
      location,
      phones: () => phones.keys(),
      emulatorUrl: emulator.url,
      timeoutMs: options.idleTimeoutMs ?? 10_000,
      now: () => clock.now(),
    });
  const phoneOf = (number: string | TestPhone): TestPhone => {
    if (typeof number !== 'string') return number;
    const digits = normalizePhone(number, { defaultCountry });
    let phone = phones.get(digits);
    if (!phone) {
      phone = createTestPhone(digits, {
        store,
        location,
        emulatorUrl: emulator.url,
        client: app.clients.get(location)!,
        openers,
        waitUntilIdle: idle,
      });
      phones.set(digits, phone);
    }
    return phone;
  };
  let closed: Promise<void> | undefined;

  return {
    location,
    clock,
    store,
    registry,
    emulatorUrl: emulator.url,
    phone: phoneOf,
    async start(bot, number, input) {
      const botId = typeof bot === 'string' ? bot : bot.id;
      if (!registry.bots.has(botId)) {
        throw new Error(
          `no bot '${botId}' in this harness; it serves: ${[...registry.bots.keys()].join(', ')}`,
        );
      }
      const phone = phoneOf(number);
      await idle();
      await startConversation(store, {
        location,
        phone: phone.number,
        botId,
        input,
        now: clock.now(),
      });
      await idle();
    },
    async advance(by) {
      const ms = typeof by === 'number' ? by : parseDuration(by);
      if (ms === undefined || ms < 0) {
        throw new Error(`cannot advance the clock by '${by}': use a duration such as 24h or 90m`);
      }
      await idle();
      await advanceThroughTimers({
        store,
        clock,
        until: clock.now() + ms,
        fireDueTimers: app.fireDueTimers!,
        waitUntilIdle: idle,
      });
    },
    async failNextDelivery(number, reason) {
      const phone = phoneOf(number);
      // A phone no SMS has reached gets its opening SMS now, so that this failure falls on the
      // bot's next message and not on the opening one (`> JOIN` right after this line).
      await idle();
      const reached = (await (
        await fetch(`${emulator.url}/_emulator/messages?to=${phone.number}&location=${location}`)
      ).json()) as unknown[];
      if (reached.length === 0) {
        const opener = await app.clients.get(location)!.sms.send({
          to: phone.number,
          body: OPENING_SMS,
        });
        openers.add(opener.id);
        await idle();
      }
      const answer = await fetch(`${emulator.url}/_emulator/next-failures`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ phone: phone.number, reason }),
      });
      if (answer.status !== 201) {
        const body = (await answer.json().catch(() => ({}))) as { error?: { message?: string } };
        throw new Error(
          `cannot fail the next delivery with '${reason}': ${body.error?.message ?? answer.status} (use EXPIRED, invalid_phone_number or insufficient_balance)`,
        );
      }
    },
    contactGroup,
    async contacts(number) {
      const phone = phoneOf(number);
      await idle();
      const held = (await (
        await fetch(`${emulator.url}/_emulator/locations/${encodeURIComponent(location)}/contacts`)
      ).json()) as Array<Record<string, unknown>>;
      return held.filter((contact) => contact.contactPhoneNumber === phone.number);
    },
    waitUntilIdle: idle,
    close() {
      closed ??= (async () => {
        await app.close();
        await emulator.close();
        await store.close();
      })();
      return closed;
    },
  };
}

function startTime(now: TestHarnessOptions['now']): number {
  if (now === undefined) return Date.now();
  const ms = now instanceof Date ? now.getTime() : typeof now === 'number' ? now : Date.parse(now);
  if (!Number.isFinite(ms)) {
    throw new Error(
      `now '${String(now)}' is not a date: use an ISO date-time such as 2026-12-01T09:00:00+01:00`,
    );
  }
  return ms;
}

/** The checked compliance section, or an error naming each bad field as a config file would. */
function complianceOf(given: ComplianceConfig | undefined) {
  if (given === undefined) return undefined;
  const parsed = complianceConfigSchema.safeParse(given);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map(
    (issue) => `compliance.${issue.path.map(String).join('.')}: ${issue.message}`,
  );
  throw new Error(`createTestHarness: ${problems.join('; ')}`);
}

/** Makes a group in the emulated service through its API (`POST /groups`), as an operator would. */
async function createGroup(
  baseUrl: string,
  keyPair: { id: string; secret: string; location: string },
  name: string,
): Promise<number> {
  const client = createMessagingClient({
    baseUrl,
    keyId: keyPair.id,
    keySecret: keyPair.secret,
    location: keyPair.location,
  });
  return (await client.groups.create(name)).id;
}
