import type { Command } from 'commander';

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
    .action(async (files: string[], options: { bots?: string }) =>
      (await import('./test-actions.ts')).runTestCommand(files, options),
    );
}
