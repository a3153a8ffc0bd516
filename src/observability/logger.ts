import { createRequire } from 'node:module';
import { type DestinationStream, type Logger, pino } from 'pino';
import type pretty from 'pino-pretty';

// Loaded only for `dev`: the JSON logs of `start` and `worker` do not pay for its start-up.
const load = createRequire(import.meta.url);

export type { Logger } from 'pino';

/**
 * Paths pino censors wherever they appear in a log line. API secrets are never logged; phone
 * numbers are masked by the code that logs them (`maskPhone`), since a masked number stays useful.
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

/** The one logger factory: JSON lines, secrets redacted. Child loggers add `{ location, bot, conversation }`. */
export function createLogger(options: LoggerOptions = {}): Logger {
  return pino(
    {
      level: options.level ?? 'info',
      redact: { paths: redactedPaths, censor: '[redacted]' },
      base: { service: 'replyflow' },
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
