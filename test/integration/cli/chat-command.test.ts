import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { waitFor } from '../../support/wait-for.ts';

/** Runs `replyflow chat …` with `stdin` piped in (no TTY), and collects what it prints. */
function chat(args: string[], stdin: string, env: Record<string, string> = {}) {
  const child = spawn(process.execPath, ['bin/replyflow.js', 'chat', ...args], {
    env: { PATH: process.env.PATH, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  child.stdin.end(stdin);
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.once('exit', (code) => resolve({ code, stdout, stderr })),
  );
}

/** The lines that follow the first one matching `start`. */
function after(lines: string[], start: RegExp): string[] {
  const at = lines.findIndex((line) => start.test(line));
  return at < 0 ? [] : lines.slice(at + 1);
}

describe('replyflow chat, driven through a pipe', { timeout: 90_000 }, () => {
  it('shows the first message, answers oui, and /state prints the state', async () => {
    const result = await chat(
      [
        'appointment',
        '--input',
        JSON.stringify({ name: 'Ana', at: '2030-12-03T09:30:00+01:00', place: 'Cabinet' }),
      ],
      'oui\n/state\n/context\n',
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const lines = result.stdout.split('\n');
    // The bot's first SMS comes before the person's answer, with its parts and encoding.
    const beforeAnswer = lines.slice(0, lines.indexOf('you ▸ oui'));
    expect(beforeAnswer.some((line) => /^bot ▸ .*Ana/.test(line))).toBe(true);
    expect(beforeAnswer.some((line) => /\d+ parts? · (GSM-7|UCS-2)/.test(line))).toBe(true);
    expect(beforeAnswer.some((line) => /↳ delivered/.test(line))).toBe(true);
    expect(beforeAnswer.some((line) => /^state: .+ → /.test(line))).toBe(true);
    // The answer moves the state, the bot answers, and /state prints where it stands.
    const afterAnswer = after(lines, /^you ▸ oui$/);
    expect(afterAnswer.some((line) => /^state: \S+ → \S+/.test(line))).toBe(true);
    expect(afterAnswer.some((line) => /^bot ▸ \S/.test(line))).toBe(true);
    const stateLine = afterAnswer.find((line) =>
      /^state: .*\(bot appointment, version \w+/.test(line),
    );
    expect(stateLine).toBeDefined();
    expect(result.stdout).toMatch(/context: \{/);
    expect(result.stdout).toContain('"reminded"');
    // Not a terminal: no colour codes.
    expect(result.stdout).not.toContain('\u001b[');
  });

  it('/advance fires due timers, /fail makes the next SMS fail, and unknown input is explained', async () => {
    const result = await chat(
      ['reminder', '--phone', '06 12 34 56 70'],
      '/fail EXPIRED\n/advance 25h\n/state\n/advance soon\n/teleport\n/fail LOST\n/stop\n/state\n/quit\nnever read\n',
      { REPLYFLOW_BOTS_DIR: 'test/fixtures/bots' },
    );
    expect(result.code).toBe(0);
    const out = result.stdout;
    expect(out).toContain('+33612345670');
    expect(out).toMatch(/bot ▸ Please confirm your appointment/);
    expect(out).toMatch(/clock moved 25h ahead/);
    // The reminder (a 24 h timer) went out, and failed as scripted; the bot heard of it.
    expect(out).toMatch(
      /bot ▸ Reminder: please reply YES to confirm\.\n.*\n\s+↳ errored \(EXPIRED\)/,
    );
    expect(out).toMatch(
      /bot ▸ Your last message expired before it reached you\.\n.*\n\s+↳ delivered/,
    );
    expect(out).toMatch(/state: reminded \(bot reminder/);
    expect(out).toMatch(/\/advance needs a duration/);
    expect(out).toMatch(/unknown command \/teleport/);
    expect(out).toMatch(/\/fail needs a reason: EXPIRED/);
    // /stop sends STOP: the opt-out is answered before any bot, and ends the conversation.
    expect(out).toMatch(/you ▸ STOP\ncompliance: opt-out.*reminder ended: opted_out/);
    expect(out).toMatch(/state: \S+ \(bot reminder, .*done, ended: opted_out\)/);
    expect(out).not.toContain('never read');
  });

  it('colours its output when asked (FORCE_COLOR), never with NO_COLOR', async () => {
    const ana = [
      'appointment',
      '--input',
      JSON.stringify({ name: 'Ana', at: '2030-12-03T09:30:00+01:00', place: 'Cabinet' }),
    ];
    const coloured = await chat(ana, '/quit\n', { FORCE_COLOR: '1' });
    expect(coloured.stdout).toContain('\u001b[');
    const plain = await chat(ana, '/quit\n', { FORCE_COLOR: '1', NO_COLOR: '1' });
    expect(plain.stdout).not.toContain('\u001b[');
    expect(plain.stdout).toMatch(/^bot ▸ /m);
  });

  it('refuses an unknown bot, bad JSON input and a bad number in one line, with exit 1', async () => {
    const unknown = await chat(['nobody'], '');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/no bot 'nobody' .*loaded: appointment/);
    const badJson = await chat(['appointment', '--input', '{name:'], '');
    expect(badJson.code).toBe(1);
    expect(badJson.stderr).toMatch(/--input.*not JSON/);
    const badPhone = await chat(['appointment', '--phone', '12'], '');
    expect(badPhone.code).toBe(1);
    expect(badPhone.stderr).toMatch(/^replyflow chat: INVALID_PHONE_NUMBER/);
    for (const run of [unknown, badJson, badPhone]) expect(run.stderr).not.toMatch(/\n\s+at /);
  });

  it('checks the start input as the admin API does, naming the field, and starts nothing', async () => {
    const missing = await chat(['appointment'], 'oui\n');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^replyflow chat: input\.name: .*; for example: --input '\{/);
    expect(missing.stdout).not.toMatch(/^bot ▸/m);
    const badDate = await chat(
      ['appointment', '--input', JSON.stringify({ name: 'Ana', at: 'lundi', place: 'Cabinet' })],
      '',
    );
    expect(badDate.code).toBe(1);
    expect(badDate.stderr).toMatch(/^replyflow chat: input\.at: /);
  });
});

describe('replyflow chat in a terminal (a pseudo-terminal made by script)', {
  timeout: 90_000,
}, () => {
  it.skipIf(!existsSync('/usr/bin/script'))(
    'shows the characters typed, and the bot answers the line',
    async () => {
      const child = spawn(
        '/usr/bin/script',
        ['-qfec', `${process.execPath} bin/replyflow.js chat survey`, '/dev/null'],
        { env: { PATH: process.env.PATH, TERM: 'xterm', NO_COLOR: '1' }, stdio: 'pipe' },
      );
      let screen = '';
      child.stdout.on('data', (d) => (screen += d));
      const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
      try {
        await waitFor(() => screen.includes('you ▸'), { timeout: 30_000, message: 'the prompt' });
        child.stdin.write('zzqq');
        await waitFor(() => screen.includes('zzqq'), { message: 'the typed characters echoed' });
        const before = screen.length;
        child.stdin.write('\r');
        await waitFor(() => screen.slice(before).includes('Répondez 1, 2 ou 3'), {
          timeout: 20_000,
          message: 'the bot asks again',
        });
        child.stdin.write('/quit\r');
        expect(await exited).toBe(0);
      } finally {
        child.kill();
      }
    },
  );
});
