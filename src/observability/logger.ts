import { createRequire } from 'node:module';
import { type DestinationStream, type Logger, pino } from 'pino';
import type pretty from 'pino-pretty';
import { maskPhonesInJsonLine } from './mask-phones-in-text.ts';

// Loaded only for `dev`: the JSON logs of `start` and `worker` do not pay for its start-up.
const load = createRequire(import.meta.url);

export type { Logger } from 'pino';

/**
 * Paths pino censors wherever they appear in a log line. API secrets are never logged. Phone
 * numbers are masked rather than censored, since a masked number stays useful: by the code that
 * logs one as a field (`maskPhone`), and in every line as a last resort (`maskPhonesInJsonLine`).
 */
export const redactedPaths = [
  'keySecret',
  '*.keySecret',
  'apiKeySecret',
  '*.apiKeySecret',
  'secret',
  '*.secret',
  'webhookSecret',
  '*.webhookSecret',
  'headers["x-api-key-secret"]',
  '*.headers["x-api-key-secret"]',
];

export interface LoggerOptions {
  level?: string;
  /** Where lines go; tests pass a stream to capture and assert on them. */
  destination?: DestinationStream;
  /**
   * Human-readable lines (pino-pretty) instead of JSON, for `replyflow dev`; colours only when
   * the destination is a terminal and NO_COLOR is unset. `start` keeps JSON for log collectors.
   */
  pretty?: { colorize: boolean };
}

/**
 * The one logger factory: JSON lines, secrets redacted, phone numbers masked everywhere in the
 * line (in error messages and refused bodies too: `maskPhonesInJsonLine`). Child loggers add
 * `{ location, bot, conversation }`.
 */
export function createLogger(options: LoggerOptions = {}): Logger {
  return pino(
    {
      level: options.level ?? 'info',
      redact: { paths: redactedPaths, censor: '[redacted]' },
      base: { service: 'replyflow' },
      // The last step before the line is written: whatever a field, a message or an error
      // quoted, no full phone number leaves the process.
      hooks: { streamWrite: maskPhonesInJsonLine },
    },
    options.pretty
      ? (load('pino-pretty') as typeof pretty)({
          colorize: options.pretty.colorize,
          // Synchronous: a line is written before the process may exit on an error.
          sync: true,
          translateTime: 'SYS:HH:MM:ss.l',
          ignore: 'pid,hostname,service',
          singleLine: true,
          ...(options.destination ? { destination: options.destination } : {}),
        })
      : options.destination,
  );
}
