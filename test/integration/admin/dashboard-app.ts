import type { Express, Request } from 'express';
import { pino } from 'pino';
import survey from '../../../bots/survey.ts';
import { createAdminRouter } from '../../../src/admin/create-admin-router.ts';
import type { LocationConfig } from '../../../src/app/config.ts';
import { createHttpApp } from '../../../src/app/create-http-app.ts';
import { createBotRegistry } from '../../../src/bot/bot-registry.ts';
import { systemClock } from '../../../src/scheduler/clock.ts';
import { createMemoryStore } from '../../../src/store/memory/create-memory-store.ts';
import type { ConversationResult } from '../../../src/store/records.ts';
import type { Store } from '../../../src/store/store.ts';

export const adminToken = '9f2c41d7b0e85a3f6c19d4e7a2b80f5c3e61d9a4b7c20e8f1a5d3c9b6e4f7a2d';
export const readToken = '4b8e1f0a7d3c6e9b2f5a8d1c4e7b0a3f6d9c2e5b8a1f4d7c0e3b6a9f2d5c8e1b';
export const location = 'paris';

export interface DashboardAppOptions {
  adminToken?: string | undefined;
  readToken?: string | undefined;
  trustProxy?: number | string[];
  openTo?: (req: Request) => boolean;
  /** Results the store lists for any bot (ended ones; no conversation is running). */
  results?: ConversationResult[];
}

/**
 * The real HTTP app with the admin router mounted as `replyflow start` mounts it, on the memory
 * store, with `bots/survey.ts` in location `paris`. `results` seeds what the store lists.
 */
export function dashboardApp(options: DashboardAppOptions = {}): { app: Express; store: Store } {
  const memory = createMemoryStore({});
  const store = options.results
    ? new Proxy(memory, {
        get(target, name, receiver) {
          if (name !== 'listResults') return Reflect.get(target, name, receiver);
          return async function* (_bot: string, query: { since?: number; location?: string } = {}) {
            yield options.results!.filter(
              (result) =>
                result.startedAt >= (query.since ?? Number.NEGATIVE_INFINITY) &&
                (query.location === undefined || result.location === query.location),
            );
          };
        },
      })
    : memory;
  const registry = createBotRegistry([{ bot: survey, file: 'bots/survey.ts' }]);
  const logger = pino({ level: 'silent' });
  const tokens = 'adminToken' in options ? options : { adminToken, readToken };
  const app = createHttpApp({
    store,
    clock: systemClock,
    logger,
    secrets: new Map(),
    trustProxy: options.trustProxy,
    extra: [
      createAdminRouter({
        store,
        registry,
        clock: systemClock,
        config: {
          locations: [{ name: location, defaultCountry: 'FR' } as LocationConfig],
          adminToken: tokens.adminToken,
          adminReadToken: tokens.readToken,
        },
        logger,
        openTo: options.openTo,
      }),
    ],
  });
  return { app, store };
}
