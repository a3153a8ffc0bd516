import { type DestinationStream, type Logger, pino } from 'pino';
import { maskPhonesInJsonLine } from './mask-phones-in-text.ts';

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
    options.destination,
  );
}
