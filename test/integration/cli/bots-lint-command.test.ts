import { execFile } from 'node:child_process';
import { describe, expect, it } from 'vitest';

/** Runs the real `replyflow` binary, as a person would. */
function replyflow(args: string[], env: Record<string, string> = {}) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      ['bin/replyflow.js', ...args],
      { env: { PATH: process.env.PATH, ...env } },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
    );
  });
}

describe('replyflow bots lint', () => {
  it('prints every reply text with its encoding and parts, and the warnings under it', async () => {
    const result = await replyflow(['bots', 'lint', '--bots', 'test/fixtures/lint-bots']);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    const lines = result.stdout.split('\n');
    expect(lines[0]).toMatch(/^bot\s+where\s+encoding\s+parts\s+chars\s+text$/);
    expect(result.stdout).toMatch(/^confirm\s+confirm\.asking entry\s+GSM-7\s+1\s+53\s+"Votre/m);
    expect(result.stdout).toMatch(/^confirm\s+confirm\.asking after 24h\s+GSM-7\s+1\s+35\s/m);
    // The named action `thank`, with its curly apostrophe, and the warning right under it.
    const thank = lines.findIndex((line) => line.includes('"Merci, c’est noté !"'));
    expect(lines[thank]).toMatch(/^confirm\s+confirm\.asking on sms\.reply\s+UCS-2\s+1\s+19\s/);
    expect(lines[thank + 1]).toBe(
      "  ! '’' (U+2019) forces UCS-2 (70 characters a part instead of 160): write ' instead",
    );
    expect(result.stdout).toMatch(/^confirm\s+confirm\.done\.bye entry\s+UCS-2\s+1\s+11\s/m);
    expect(result.stdout).toContain("'👋' (U+1F44B) forces UCS-2");
    expect(result.stdout).toMatch(/\(computed: linted when sent\)/);
    // The computed text, as the folder's transcript made the bot send it, linted too.
    const sent = lines.findIndex((line) => line.includes('"Bien reçu : non 😕"'));
    expect(lines[sent]).toMatch(
      /^confirm\s+sent \(test\/fixtures\/lint-bots\/confirm-no\.transcript\)\s+UCS-2\s+1\s+17\s/,
    );
    expect(lines[sent + 2]).toContain("'😕' (U+1F615) forces UCS-2");
    expect(result.stdout).toContain(
      '4 static texts, 1 computed (linted when sent); 1 more text as sent, linted, 3 with warnings',
    );
    // --no-run: the static reading alone, as before.
    const staticOnly = await replyflow([
      'bots',
      'lint',
      '--bots',
      'test/fixtures/lint-bots',
      '--no-run',
    ]);
    expect(staticOnly.stdout).not.toContain('Bien reçu');
    expect(staticOnly.stdout).toContain(
      '4 static texts, 1 computed (linted when sent), 2 with warnings',
    );
  });

  it('lints the texts a bot without transcripts sends when started with its exampleInput', async () => {
    const result = await replyflow(['bots', 'lint', '--bots', 'test/fixtures/lint-bots-example']);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toMatch(
      /^greeter\s+sent \(greeter's exampleInput\)\s+UCS-2\s+1\s+\d+\s+"Bonjour Zoë/m,
    );
    expect(result.stdout).toContain("'ë' (U+00EB) forces UCS-2");
  });

  it('--strict exits 1 on a warning, and 0 when every text is clean', async () => {
    const warned = await replyflow([
      'bots',
      'lint',
      '--bots',
      'test/fixtures/lint-bots',
      '--strict',
    ]);
    expect(warned.code).toBe(1);
    expect(warned.stdout).toContain('3 with warnings');
    const clean = await replyflow([
      'bots',
      'lint',
      '--bots',
      'test/fixtures/lint-bots-clean',
      '--strict',
    ]);
    expect(clean).toMatchObject({ code: 0, stderr: '' });
    expect(clean.stdout).toMatch(/^hello\s+hello entry\s+GSM-7\s+1\s+48\s/m);
  });

  it('reads REPLYFLOW_BOTS_DIR without --bots', async () => {
    const result = await replyflow(['bots', 'lint', '--strict'], {
      REPLYFLOW_BOTS_DIR: 'test/fixtures/lint-bots-clean',
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('1 static text, 0 computed');
  });

  it('a missing folder is an expected error: code and message, exit 1, no stack trace', async () => {
    const result = await replyflow(['bots', 'lint', '--bots', 'test/fixtures/no-such-folder']);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(
      /^error BOT_DEFINITION_INVALID: cannot read the bots folder .*no-such-folder: create it or set REPLYFLOW_BOTS_DIR\n$/,
    );
  });
});
