import { randomBytes } from 'node:crypto';
import { Router } from 'express';
import { createEmulatorApp } from '../emulator/create-emulator-app.ts';
import type { EmulatorContext } from '../emulator/emulator-context.ts';
import type { Logger } from '../observability/logger.ts';
import type { AppConfig } from './config.ts';
import { createDevRouter } from './create-dev-router.ts';
import { type RunningReplyflow, startReplyflow } from './start-replyflow.ts';

/**
 * `replyflow dev`: the bots on the embedded defaults. With no key pair configured, the
 * emulator of the messaging service runs inside the same server (its `/v1` and `/_emulator`
 * routes sit beside the webhook), the client points at it, and the webhook is registered
 * with it, so a newcomer can chat with the bots right after `npm install`.
 */
export async function startDev(
  config: AppConfig,
  logger: Logger,
): Promise<RunningReplyflow & { emulated: boolean }> {
  const emulated = config.locations.length === 0;
  const extra: Router[] = [];
  let closeEmulator = async () => {};
  let emulatorContext: EmulatorContext | undefined;
  let devConfig = config;
  if (emulated) {
    const local = `http://127.0.0.1:${config.port}`;
    const emulator = createEmulatorApp({
      keyPairs: [{ id: 'dev', secret: 'dev', location: 'default' }],
      logger,
    });
    closeEmulator = () => emulator.close();
    emulatorContext = emulator.context;
    const router = Router();
    router.use(emulator.app);
    extra.push(router);
    devConfig = {
      ...config,
      publicUrl: config.publicUrl ?? local,
      locations: [
        {
          name: 'default',
          providerUrl: `${local}/v1`,
          apiKeyId: 'dev',
          apiKeySecret: 'dev',
          webhookSecret: randomBytes(16).toString('hex'),
          defaultCountry: 'FR',
          rateLimitPerSecond: 50,
        },
      ],
    };
  }
  const running = await startReplyflow({
    config: devConfig,
    logger,
    extra: (context) => [
      createDevRouter({
        ...context,
        location: devConfig.locations[0]?.name ?? 'default',
        emulator: emulatorContext,
        defaultCountry: devConfig.locations[0]?.defaultCountry,
        logger,
      }),
      ...extra,
    ],
  });
  return {
    ...running,
    emulated,
    async close() {
      await running.close();
      await closeEmulator();
    },
  };
}
