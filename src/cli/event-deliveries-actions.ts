import { type AppConfig, loadConfig } from '../app/config.ts';
import { ConfigError, ReplyflowError } from '../errors.ts';
import { createLogger } from '../observability/logger.ts';
import type { QueuedEvent } from '../store/event-outbox.ts';
import type { Store } from '../store/store.ts';
import { formatTable } from './format-table.ts';
import { openDeploymentStore } from './open-deployment-store.ts';

/** `replyflow webhooks deliveries`, loaded when it runs (event-deliveries-command.ts defines its options). */
export function listDeliveries(options: {
  failed?: boolean;
  limit: string;
  json?: boolean;
}): Promise<void> {
  return run('deliveries', (config) => deliveries(config, options));
}

/** `replyflow webhooks replay`. */
export function replayDelivery(id: string): Promise<void> {
  return run('replay', (config) => replay(config, id));
}

async function run(name: string, action: (config: AppConfig) => Promise<void>): Promise<void> {
  try {
    await action(await loadConfig(process.env));
  } catch (error) {
    if (!(error instanceof ReplyflowError)) throw error;
    process.stderr.write(`replyflow webhooks ${name}: ${error.code}: ${error.message}\n`);
    process.exitCode = 1;
  }
}

async function withStore(config: AppConfig, doing: string, use: (store: Store) => Promise<void>) {
  const logger = createLogger({ level: 'warn', destination: process.stderr });
  const { store, close } = openDeploymentStore(config, doing, logger);
  try {
    await use(store);
  } finally {
    await close();
  }
}

async function deliveries(
  config: AppConfig,
  options: { failed?: boolean; limit: string; json?: boolean },
): Promise<void> {
  const limit = Number(options.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 10_000) {
    throw new ConfigError(`--limit must be a whole number from 1 to 10000, not '${options.limit}'`);
  }
  await withStore(config, 'replyflow webhooks deliveries reads the event outbox', async (store) => {
    const events = await store.listEvents({ failed: options.failed === true, limit });
    if (options.json) {
      for (const queued of events) process.stdout.write(`${JSON.stringify(queued)}\n`);
      return;
    }
    process.stdout.write(`${formatTable(events.map(row), columns(options.failed === true))}\n`);
  });
}

const time = (ms: number | undefined) =>
  ms === undefined ? undefined : new Date(ms).toISOString();

function row(queued: QueuedEvent) {
  return {
    id: queued.event.id,
    type: queued.event.type,
    location: queued.event.data.location,
    bot: queued.event.data.bot,
    phone: queued.event.data.phone,
    attempts: queued.attempts,
    'queued at': time(queued.queuedAt),
    'next attempt': time(queued.dueAt),
    'last error': queued.lastError,
    'given up at': time(queued.deadAt),
    reason: queued.reason,
  };
}

function columns(failed: boolean): (keyof ReturnType<typeof row>)[] {
  const common: (keyof ReturnType<typeof row>)[] = [
    'id',
    'type',
    'location',
    'bot',
    'phone',
    'attempts',
  ];
  return failed
    ? [...common, 'given up at', 'reason']
    : [...common, 'queued at', 'next attempt', 'last error'];
}

async function replay(config: AppConfig, id: string): Promise<void> {
  await withStore(config, 'replyflow webhooks replay queues the event again', async (store) => {
    if (!(await store.replayEvent(id, Date.now()))) {
      throw new ConfigError(
        `no dead letter '${id}': see replyflow webhooks deliveries --failed (a delivered or still queued event cannot be replayed)`,
      );
    }
    process.stdout.write(`queued ${id} again: it is delivered with the same id\n`);
  });
}
