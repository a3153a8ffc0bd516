import { relative } from 'node:path';
import { botsDirFromEnv } from '../app/bots-dir-from-env.ts';
import type { Bot } from '../bot/define-bot.ts';
import { loadBots } from '../bot/load-bots.ts';
import { ReplyflowError } from '../errors.ts';
import { findTranscripts } from '../testing/find-transcripts.ts';
import { playTranscriptFile } from '../testing/run-transcript.ts';

/** `replyflow test`, loaded when it runs (test-command.ts defines its options). */
export async function runTestCommand(files: string[], options: { bots?: string }): Promise<void> {
  process.exitCode = await runTests(files, options.bots ?? botsDirFromEnv());
}

async function runTests(given: string[], botsDir: string): Promise<number> {
  let bots: Bot[];
  try {
    // Load once: a bot that does not load is one clear error, not one per file.
    bots = [...(await loadBots(botsDir)).bots.values()];
  } catch (error) {
    if (!(error instanceof ReplyflowError)) throw error;
    process.stderr.write(`replyflow test: ${error.message}\n`);
    return 1;
  }
  const roots = given.length > 0 ? given : ['transcripts', relative(process.cwd(), botsDir) || '.'];
  let files: string[];
  try {
    files = await findTranscripts(roots, { required: given.length > 0 });
  } catch (error) {
    process.stderr.write(`replyflow test: ${(error as Error).message}\n`);
    return 1;
  }
  if (files.length === 0) {
    process.stderr.write(
      `replyflow test: no *.transcript file in ${roots.join(' or ')}: write one (see docs/writing-bots.md) or name the files\n`,
    );
    return 1;
  }
  let failed = 0;
  for (const file of files) {
    const outcome = await playTranscriptFile(file, { bots });
    if (outcome.passed) process.stdout.write(`✓ ${outcome.file} (${outcome.steps} steps)\n`);
    else {
      failed++;
      process.stdout.write(`✗ ${outcome.failure.message}\n`);
    }
  }
  const passed = files.length - failed;
  process.stdout.write(`\n${passed} passed, ${failed} failed\n`);
  return failed === 0 ? 0 : 1;
}
