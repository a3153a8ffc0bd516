import { execFile } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve as resolvePath } from 'node:path';
import { describe, expect, it } from 'vitest';

/** Runs the real `replyflow` binary (from `cwd`, the repository by default). */
function replyflow(args: string[], env: Record<string, string | undefined> = {}, cwd?: string) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      [resolvePath('bin/replyflow.js'), ...args],
      { env: { PATH: process.env.PATH, ...env }, cwd },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
    );
  });
}

const dir = 'test/fixtures/transcripts';

describe('replyflow test', () => {
  it('exits 0 when every transcript of a folder passes, with the bots of --bots', async () => {
    const run = await replyflow(['test', `${dir}/pass`, '--bots', 'test/fixtures/kit-bots']);
    expect(run.stderr).toBe('');
    expect(run.stdout).toContain(`✓ ${dir}/pass/appointment-yes.transcript (9 steps)`);
    expect(run.stdout).toContain('5 passed, 0 failed');
    expect(run.code).toBe(0);
  });

  it('exits 1 when one file fails, and prints file:line with the expected and actual text', async () => {
    const run = await replyflow(
      ['test', `${dir}/pass/join.transcript`, `${dir}/fail/wrong-state.transcript`],
      { REPLYFLOW_BOTS_DIR: 'test/fixtures/kit-bots' },
    );
    expect(run.stdout).toContain(`✓ ${dir}/pass/join.transcript`);
    expect(run.stdout).toContain(
      `✗ ${dir}/fail/wrong-state.transcript:5: expected the state ended, got confirmed`,
    );
    expect(run.stdout).toContain('1 passed, 1 failed');
    expect(run.code).toBe(1);
  });

  it('exits 1 with a clear message for a missing file, a bad bots folder, or no transcript', async () => {
    const missing = await replyflow([
      'test',
      'nope.transcript',
      '--bots',
      'test/fixtures/kit-bots',
    ]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/nope\.transcript does not exist/);
    const noBots = await replyflow(['test', `${dir}/pass`, '--bots', 'test/fixtures/none']);
    expect(noBots.code).toBe(1);
    expect(noBots.stderr).toMatch(
      /cannot read the bots folder .*none: create it or set REPLYFLOW_BOTS_DIR/,
    );
    // From a folder with no transcripts/ (the repository has the reference bots' ones).
    const empty = await mkdtemp(join(tmpdir(), 'replyflow-test-'));
    const none = await replyflow(
      ['test', '--bots', resolvePath('test/fixtures/kit-bots')],
      {},
      empty,
    );
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(
      /no \*\.transcript file in transcripts or .*test\/fixtures\/kit-bots/,
    );
  });
});
