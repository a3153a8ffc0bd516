import { readdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { botsDirFromEnv } from '../app/bots-dir-from-env.ts';
import type { Bot } from '../bot/define-bot.ts';
import { loadBots } from '../bot/load-bots.ts';
import { ReplyflowError } from '../errors.ts';
import { playTranscriptFile } from '../testing/run-transcript.ts';

/**
 * `replyflow test [files…] [--bots DIR]`: runs transcripts on the test harness (the real
 * engine, the emulator, a manual clock). With no file, every `*.transcript` under
 * `./transcripts` and under the bots folder. Exits 0 only when every file passes.
 */
export function registerTestCommand(program: Command): void {
  program
    .command('test')
    .description(
      'Run transcripts (*.transcript) against the bots; with no file, those under ./transcripts and the bots folder',
    )
    .argument('[files...]', 'transcript files or folders')
    .option('--bots <dir>', 'folder of bot files (default REPLYFLOW_BOTS_DIR or ./bots)')
    .action(async (files: string[], options: { bots?: string }) => {
      process.exitCode = await runTests(files, options.bots ?? botsDirFromEnv());
    });
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
  const roots = given.length > 0 ? given : ['transcripts', botsDir];
  const files: string[] = [];
  for (const root of roots) {
    const found = await transcriptsIn(resolve(root), given.length > 0);
    if (typeof found === 'string') {
      process.stderr.write(`replyflow test: ${found}\n`);
      return 1;
    }
    files.push(...found);
  }
  if (files.length === 0) {
    process.stderr.write(
      `replyflow test: no *.transcript file in ${roots.join(' or ')}: write one (see docs/writing-bots.md) or name the files\n`,
    );
    return 1;
  }
  let failed = 0;
  for (const file of [...new Set(files)]) {
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

/** The transcripts of a file or folder (recursively); an error text for a missing path asked for. */
async function transcriptsIn(path: string, required: boolean): Promise<string[] | string> {
  const info = await stat(path).catch(() => undefined);
  if (!info) return required ? `${path} does not exist` : [];
  if (info.isFile()) return [path];
  const found: string[] = [];
  for (const entry of await readdir(path, { withFileTypes: true })) {
    if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
    const child = join(path, entry.name);
    if (entry.isDirectory()) found.push(...((await transcriptsIn(child, false)) as string[]));
    else if (entry.name.endsWith('.transcript')) found.push(child);
  }
  return found.sort();
}
