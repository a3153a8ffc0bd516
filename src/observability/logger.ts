import { type DestinationStream, type Logger, pino } from 'pino';

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
}

/** The one logger factory: JSON lines, secrets redacted. Child loggers add `{ location, bot, conversation }`. */
export function createLogger(options: LoggerOptions = {}): Logger {
  return pino(
    {
      level: options.level ?? 'info',
      redact: { paths: redactedPaths, censor: '[redacted]' },
      base: { service: 'replyflow' },
    },
    options.destination,
  );
}
