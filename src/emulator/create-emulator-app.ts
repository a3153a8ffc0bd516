import express from 'express';
import { contactRoutes } from './api/contact-routes.ts';
import { smsRoutes } from './api/sms-routes.ts';
import { webhookRoutes } from './api/webhook-routes.ts';
import { stampArrival } from './arrival-time.ts';
import { authenticate } from './authenticate.ts';
import { inspectionRoutes } from './control/inspection-routes.ts';
import { scriptingRoutes } from './control/scripting-routes.ts';
import { createEmulatorContext, type EmulatorDeps } from './create-emulator-context.ts';
import type { EmulatorContext } from './emulator-context.ts';
import type { EmulatorOptions } from './emulator-options.ts';
import { handleApiError, routeNotFound } from './handle-api-error.ts';

export type { EmulatorDeps } from './create-emulator-context.ts';

export interface EmulatorApp {
  app: express.Express;
  context: EmulatorContext;
  /** Stops every timer, delivery and event stream; the HTTP server is the caller's. */
  close(): Promise<void>;
}

/**
 * The emulator as an Express app with no transport: the service API under `/v1` and the
 * control API under `/_emulator`. `startEmulator` listens with it; `replyflow dev` mounts it.
 */
export function createEmulatorApp(options: EmulatorOptions, deps: EmulatorDeps = {}): EmulatorApp {
  const context = createEmulatorContext(options, deps);
  const { config, clock, logger, requestLog, rateLimiter, endpointFaults } = context;
  // Each part ends with its own 404 and error handler, so the app can be mounted inside another
  // (`replyflow dev`) and leave every other path to it.
  const app = express();
  app.disable('x-powered-by');
  // The spec gives the service's answers no ETag, and Express's (a SHA-1 of every JSON body)
  // was about 4 % of the emulator's CPU per POST /sms in the reply-loop bench's profile.
  app.set('etag', false);
  app.use(
    '/_emulator',
    express.json(),
    inspectionRoutes(context),
    scriptingRoutes(context),
    routeNotFound,
    handleApiError(logger),
  );
  app.use(
    '/v1',
    stampArrival(clock),
    requestLog.middleware(),
    // Credentials, then the rate, then injected faults: a 503 only reaches a known client.
    authenticate(config.keyPairs),
    rateLimiter.middleware(),
    endpointFaults.middleware(),
    express.json(),
    smsRoutes(context),
    webhookRoutes(context),
    contactRoutes(context),
    routeNotFound,
    handleApiError(logger),
  );

  return {
    app,
    context,
    async close() {
      context.work.stop();
      context.events.closeAll();
      await context.dispatcher.close();
    },
  };
}
