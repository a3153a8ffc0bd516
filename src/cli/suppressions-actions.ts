import { createReadStream } from 'node:fs';
import type { CountryCode } from 'libphonenumber-js/max';
import { requestLocation } from '../admin/request-location.ts';
import { type AppConfig, type LocationConfig, loadConfig } from '../app/config.ts';
import { ConfigError, ReplyflowError, ValidationError } from '../errors.ts';
import { createLogger } from '../observability/logger.ts';
import { maskPhone, quotedPhone } from '../observability/mask-phone.ts';
import { normalizePhone } from '../provider/normalize-phone.ts';
import type { Store } from '../store/store.ts';
import type { Suppression } from '../store/suppression.ts';
import { importSuppressions, maxReasonLength } from '../suppressions/import-suppressions.ts';
import { suppressionEvent, wantsEvents } from '../suppressions/suppression-event.ts';
import { writeSuppressions } from '../suppressions/write-suppressions.ts';
import { formatTable } from './format-table.ts';
import { openDeploymentStore } from './open-deployment-store.ts';

export interface Where {
  location?: string;
}

/** `replyflow suppressions import`, loaded when it runs (suppressions-command.ts defines its options). */
export function importSuppressionsFile(
  file: string,
  options: Where & { reason?: string },
): Promise<void> {
  return run('import', (config) => importFile(config, file, options));
}

/** `replyflow suppressions export`. */
export function exportSuppressions(options: Where): Promise<void> {
  return run('export', (config) => exportList(config, options));
}

/** `replyflow suppressions list`. */
export function listSuppressions(
  options: Where & { limit: string; full?: boolean },
): Promise<void> {
  return run('list', (config) => showList(config, options));
}

/** `replyflow suppressions remove`. */
export function removeSuppression(phone: string, options: Where): Promise<void> {
  return run('remove', (config) => removePhone(config, phone, options));
}

/** Runs a sub-command: expected failures print one line and exit 1, without a stack. */
async function run(name: string, action: (config: AppConfig) => Promise<number>): Promise<void> {
  try {
    process.exitCode = await action(await loadConfig(process.env));
  } catch (error) {
    if (!(error instanceof ReplyflowError)) throw error;
    process.stderr.write(`replyflow suppressions ${name}: ${error.code}: ${error.message}\n`);
    process.exitCode = 1;
  }
}

async function withStore<T>(
  config: AppConfig,
  doing: string,
  use: (store: Store) => Promise<T>,
): Promise<T> {
  const logger = createLogger({ level: 'warn', destination: process.stderr });
  const { store, close } = openDeploymentStore(config, doing, logger);
  try {
    return await use(store);
  } finally {
    await close();
  }
}

function locationOf(config: AppConfig, name: string | undefined): LocationConfig {
  const location = requestLocation(config.locations, name);
  if (typeof location === 'string') throw new ConfigError(`--location: ${location}`);
  return location;
}

async function importFile(
  config: AppConfig,
  file: string,
  options: Where & { reason?: string },
): Promise<number> {
  const location = locationOf(config, options.location);
  if (options.reason !== undefined && options.reason.length > maxReasonLength) {
    throw new ConfigError(`--reason is longer than ${maxReasonLength} characters`);
  }
  const input = createReadStream(file);
  // A missing file is said before the store is opened.
  await new Promise<void>((resolve, reject) => {
    input.once('open', () => resolve());
    input.once('error', (cause) =>
      reject(new ConfigError(`cannot read ${file}: ${(cause as Error).message}`, { cause })),
    );
  });
  const summary = await withStore(
    config,
    'replyflow suppressions import writes the list',
    (store) =>
      importSuppressions(store, input, {
        location: location.name,
        source: 'import',
        defaultCountry: location.defaultCountry,
        reason: options.reason,
        now: Date.now(),
        optoutEvents: wantsEvents(location.events, 'optout'),
        onRejected: ({ line, reason }) => process.stderr.write(`line ${line}: ${reason}\n`),
      }),
  );
  process.stdout.write(
    `${location.name}: imported ${summary.imported}, already there ${summary.existing}, bad rows ${summary.rejected}\n`,
  );
  return 0;
}

async function exportList(config: AppConfig, options: Where): Promise<number> {
  const location = locationOf(config, options.location);
  await withStore(config, 'replyflow suppressions export reads the list', (store) =>
    writeSuppressions(store, location.name, process.stdout, 'csv'),
  );
  return 0;
}

async function showList(
  config: AppConfig,
  options: Where & { limit: string; full?: boolean },
): Promise<number> {
  const location = locationOf(config, options.location);
  const limit = Number(options.limit);
  if (!Number.isInteger(limit) || limit < 1) {
    throw new ConfigError(`--limit must be a whole number of at least 1, not '${options.limit}'`);
  }
  const { shown, more } = await withStore(
    config,
    'replyflow suppressions list reads the list',
    async (store) => {
      const entries: Suppression[] = [];
      for await (const batch of store.listSuppressions(location.name, Math.min(limit, 500))) {
        entries.push(...batch);
        if (entries.length > limit) break;
      }
      return { shown: entries.slice(0, limit), more: entries.length > limit };
    },
  );
  const rows = shown.map((entry) => ({
    phone: options.full ? entry.phone : maskPhone(entry.phone),
    'opted out at': entry.at > 0 ? new Date(entry.at).toISOString() : undefined,
    source: entry.source,
    reason: entry.reason,
  }));
  process.stdout.write(`${formatTable(rows, ['phone', 'opted out at', 'source', 'reason'])}\n`);
  if (more) {
    process.stdout.write(
      `(the first ${limit} of ${location.name}'s list; replyflow suppressions export gives them all)\n`,
    );
  }
  return 0;
}

async function removePhone(config: AppConfig, written: string, options: Where): Promise<number> {
  const location = locationOf(config, options.location);
  let phone: string;
  try {
    phone = normalizePhone(written, {
      defaultCountry: location.defaultCountry as CountryCode | undefined,
      accept: 'reply',
    });
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    throw new ConfigError(
      `${quotedPhone(written)} is not a phone number: write it with its country prefix (+33 6 12 34 56 78)`,
    );
  }
  const removed = await withStore(
    config,
    'replyflow suppressions remove writes the list',
    (store) => {
      // The location's subscriptions hear the opt-in, as they would a texted START.
      const optin = wantsEvents(location.events, 'optin')
        ? suppressionEvent('optin', location.name, phone, Date.now(), { source: 'cli' })
        : undefined;
      return store.removeSuppression({ location: location.name, phone }, optin);
    },
  );
  const masked = maskPhone(phone);
  if (!removed) {
    process.stderr.write(
      `replyflow suppressions remove: ${masked} is not on the suppression list of ${location.name}\n`,
    );
    return 1;
  }
  process.stdout.write(
    `${masked} removed from the suppression list of ${location.name}: it may be sent messages again\n`,
  );
  return 0;
}
