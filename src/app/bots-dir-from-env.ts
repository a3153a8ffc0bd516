import { resolve } from 'node:path';

/**
 * The bots folder the environment names: `REPLYFLOW_BOTS_DIR`, or `./bots`, resolved from the
 * working directory. For the commands and helpers that need only this setting (`replyflow
 * test`, `runTranscript`), not the whole configuration.
 */
export function botsDirFromEnv(env: NodeJS.ProcessEnv = process.env): string {
  return resolve(env.REPLYFLOW_BOTS_DIR || './bots');
}
