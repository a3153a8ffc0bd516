import { readFile } from 'node:fs/promises';
import { relative } from 'node:path';
import { botsDirFromEnv } from '../app/bots-dir-from-env.ts';
import type { Bot } from '../bot/define-bot.ts';
import { createTestHarness } from './create-test-harness.ts';
import { parseTranscript, TranscriptSyntaxError } from './parse-transcript.ts';
import { playTranscript, type TranscriptOutcome } from './play-transcript.ts';
import { type SentText, sentTexts } from './sent-texts.ts';

/** The options of `runTranscript`. */
export interface RunTranscriptOptions {
  /** The bots: `defineBot` values, or their folder. Default: `REPLYFLOW_BOTS_DIR` or `./bots`. */
  bots?: readonly Bot[] | string;
  /** How long to wait for the engine to become idle after a step. Default 10 000 ms. */
  idleTimeoutMs?: number;
  /** Called with every SMS the bots sent, once the transcript has run (`replyflow bots lint`). */
  onSent?: (texts: SentText[]) => void;
}

/** A transcript that did not pass; the message says `file:line`, what was expected and what came. */
export class TranscriptFailedError extends Error {
  constructor(readonly outcome: Extract<TranscriptOutcome, { passed: false }>) {
    super(outcome.failure.message);
    this.name = 'TranscriptFailedError';
  }
}

/**
 * Runs one transcript file on a fresh harness and resolves to its outcome (it does not throw
 * when the transcript fails; `runTranscript` does).
 *
 * @example
 * const outcome = await playTranscriptFile('transcripts/join.transcript', { bots: './bots' });
 * console.log(outcome.passed ? 'ok' : outcome.failure.message);
 */
export async function playTranscriptFile(
  path: string,
  options: RunTranscriptOptions = {},
): Promise<TranscriptOutcome> {
  const file = relative(process.cwd(), path) || path;
  let transcript: ReturnType<typeof parseTranscript>;
  try {
    transcript = parseTranscript(await readFile(path, 'utf8'), file);
  } catch (error) {
    const problems =
      error instanceof TranscriptSyntaxError
        ? error.problems
        : [`${file}:0: cannot read the file: ${(error as Error).message}`];
    const line = Number(/^.*?:(\d+):/.exec(problems[0] ?? '')?.[1] ?? 0);
    return { file, passed: false, steps: 0, failure: { file, line, message: problems.join('\n') } };
  }
  const harness = await createTestHarness({
    bots: options.bots ?? botsDirFromEnv(),
    now: transcript.now,
    idleTimeoutMs: options.idleTimeoutMs,
  });
  try {
    const outcome = await playTranscript(harness, transcript);
    options.onSent?.(await sentTexts(harness));
    return outcome;
  } finally {
    await harness.close();
  }
}

/**
 * Runs a transcript file for vitest: resolves when it passes, throws `TranscriptFailedError`
 * (`file:line: expected "…", got "…"`) when it does not.
 *
 * @example
 * import { it } from 'vitest';
 * import { runTranscript } from 'replyflow/testing';
 *
 * it('confirms an appointment', () => runTranscript('transcripts/appointment-yes.transcript'));
 * it('with given bots', () => runTranscript('transcripts/join.transcript', { bots: 'bots' }));
 */
export async function runTranscript(
  path: string,
  options: RunTranscriptOptions = {},
): Promise<void> {
  const outcome = await playTranscriptFile(path, options);
  if (!outcome.passed) throw new TranscriptFailedError(outcome);
}
