import { randomBytes } from 'node:crypto';
import { Router } from 'express';
import { addGroup } from '../emulator/add-group.ts';
import { createEmulatorApp, type EmulatorApp } from '../emulator/create-emulator-app.ts';
import { isLoopback } from '../emulator/is-loopback.ts';
import { requireLocalHost } from '../emulator/require-local-host.ts';
import { newEventSecret } from '../events/event-secret.ts';
import type { EventSubscription, OutboundEvent } from '../events/outbound-event.ts';
import { postEvent } from '../events/post-event.ts';
import type { Logger } from '../observability/logger.ts';
import { createMemoryStore } from '../store/memory/create-memory-store.ts';
import { allowPrivateEvents } from './allow-private-events.ts';
import type { AppConfig } from './config.ts';
import { createDevClock, type DevClock } from './create-dev-clock.ts';
import { createDevRouter } from './create-dev-router.ts';
import { DevReceiver } from './dev-phone/dev-receiver.ts';
import { freePortOn } from './listen-on.ts';
import { type RunningReplyflow, type StartOptions, startReplyflow } from './start-replyflow.ts';
import { type LiveBots, watchBots } from './watch-bots.ts';

export interface DevOptions {
  /** Interface to listen on. Default 127.0.0.1: dev lets its caller drive bots and read messages. */
  host?: string;
  /**
   * Host names (or addresses) answered besides loopback ones (`--allow-host`). Every route of dev
   * refuses any other `Host` with 403, so that no web page reaches it by DNS rebinding; `host`,
   * when a specific address, and the host of REPLYFLOW_PUBLIC_URL are answered too.
   */
  allowedHosts?: string[];
  /** Watch the bots folder and reload on change. Default true. */
  watch?: boolean;
  /** Always the emulator and the memory store, whatever the configuration says (`replyflow chat`). */
  embedded?: boolean;
  /** Called after each committed step (`replyflow chat` prints them). */
  onStep?: NonNullable<StartOptions['worker']>['onStep'];
}

export interface RunningDev extends RunningReplyflow {
  /** The web server's URL; always set in dev. */
  url: string;
  /** True when the built-in emulator stands in for the messaging service. */
  emulated: boolean;
  emulator: EmulatorApp | undefined;
  /** The location conversations start in. */
  location: string;
  clock: DevClock;
  bots: LiveBots;
  botsDir: string;
}

/**
 * `replyflow dev` (and `replyflow chat`): the bots on the embedded defaults. With no key pair
 * configured, the emulator of the messaging service runs inside the same server (its `/v1` and
 * `/_emulator` routes sit beside the webhook), the client points at it, and the webhook is
 * registered with it, so a newcomer can chat with the bots right after `npm install`. The bots
 * folder is watched and reloaded on change, and the clock can be moved ahead.
 */
export async function startDev(
  config: AppConfig,
  logger: Logger,
  options: DevOptions = {},
): Promise<RunningDev> {
  const host = options.host ?? '127.0.0.1';
  const base = options.embedded
    ? { ...config, locations: [], redisUrl: undefined, publicUrl: undefined, events: undefined }
    : config;
  const emulated = base.locations.length === 0;
  const bots = await watchBots({ dir: base.botsDir, logger, watch: options.watch });
  let emulator: EmulatorApp | undefined;
  let devConfig = base;
  const extra: Router[] = [];
  try {
    // The port must be known now: the webhook URL registered with the emulator and the dev
    // receiver's subscription name it.
    const port = base.port === 0 ? await freePortOn(host) : base.port;
    const reachable = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
    const local = `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${port}`;
    devConfig = { ...base, port };
    if (emulated) {
      emulator = createEmulatorApp({
        keyPairs: [{ id: 'dev', secret: 'dev', location: 'default' }],
        logger,
        // Listening beyond loopback, the emulator refuses webhooks into this machine or its
        // network, but for the one dev registers itself.
        host,
        trustedWebhookOrigins: [base.publicUrl ?? local],
      });
      const router = Router();
      router.use(emulator.app);
      extra.push(router);
      // The location's contacts group, as an operator makes theirs: an opt-in bot adds people
      // to it, and an opt-out marks them unsubscribed there.
      const contacts = addGroup(emulator.context, 'default', 'Subscribers');
      devConfig = {
        ...devConfig,
        publicUrl: base.publicUrl ?? local,
        locations: [
          {
            name: 'default',
            providerUrl: `${local}/v1`,
            apiKeyId: 'dev',
            apiKeySecret: 'dev',
            webhookSecret: randomBytes(16).toString('hex'),
            defaultCountry: base.defaultCountry ?? 'FR',
            compliance: { group: contacts.id },
            rateLimitPerSecond: 50,
            ...(base.events && { events: base.events }),
          },
        ],
      };
    }
    const clock = createDevClock();
    // The dev phone's receiver: every location also sends its events to /dev/receiver on this
    // server, signed with a secret made now, beside the developer's own subscriptions (chat, a
    // terminal, has no page to show them).
    const receiver = options.embedded
      ? undefined
      : new DevReceiver(newEventSecret(), `${local}/dev/receiver`, () => clock.now());
    if (receiver) {
      devConfig = {
        ...devConfig,
        locations: devConfig.locations.map((location) => ({
          ...location,
          events: [...(location.events ?? []), receiver.subscription()],
        })),
      };
    }
    devConfig = allowPrivateEvents(devConfig);
    const location = devConfig.locations[0]?.name ?? 'default';
    // Chat is a throwaway by design: its store, made here, brings no "state lost on exit" warning.
    const store = options.embedded ? createMemoryStore({}) : undefined;
    const running = await startReplyflow({
      config: devConfig,
      logger,
      store,
      host,
      guard: requireLocalHost({
        allowedHosts: [
          ...(options.allowedHosts ?? []),
          ...(devConfig.publicUrl ? [new URL(devConfig.publicUrl).hostname] : []),
        ],
        listenHost: host,
      }),
      registry: bots.live,
      // The dashboard as the dev phone: no login from this machine (the Host check above
      // refuses any page that is not addressed to it, DNS rebinding included).
      adminOpenTo: (req) => isLoopback(req.socket.remoteAddress ?? ''),
      clock,
      worker: { onStep: options.onStep },
      // What the developer's own receivers answer is shown beside each event on the page.
      ...(receiver && {
        events: {
          post: async (subscription: EventSubscription, event: OutboundEvent) => {
            const attempt = await postEvent(subscription, event, { timeoutMs: 10_000 });
            receiver.noteAnswer(subscription, event, attempt);
            return attempt;
          },
        },
      }),
      extra: (context) => [
        createDevRouter({
          ...context,
          clock,
          bots,
          location,
          emulator: emulator?.context,
          defaultCountry: devConfig.locations[0]?.defaultCountry,
          logger,
          receiver,
        }),
        ...extra,
      ],
    });
    // Timers the jump made due fire now, not at the scheduler's next sweep.
    clock.onAdvance(() => {
      running.fireDueTimers?.().catch((error: unknown) => {
        logger.error({ err: error }, 'firing due timers after a clock advance failed');
      });
      running.fireDueCampaigns?.().catch((error: unknown) => {
        logger.error(
          { err: error },
          'starting due campaign recipients after a clock advance failed',
        );
      });
    });
    return {
      ...running,
      url: running.url!,
      emulated,
      emulator,
      location,
      clock,
      bots,
      botsDir: base.botsDir,
      async close() {
        bots.close();
        await running.close();
        await store?.close();
        await emulator?.close();
      },
    };
  } catch (error) {
    bots.close();
    await emulator?.close();
    throw error;
  }
}
