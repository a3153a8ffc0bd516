import { type ChildProcess, spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { apiErrorBodySchema } from '../../../src/provider/schemas/api-error.ts';
import { waitFor } from '../../support/wait-for.ts';

/** Runs the real `replyflow emulator` binary, collecting its output. */
function replyflowEmulator(args: string[]) {
  const child = spawn(process.execPath, ['bin/replyflow.js', 'emulator', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = { stdout: '', stderr: '' };
  child.stdout?.on('data', (chunk) => {
    output.stdout += String(chunk);
  });
  child.stderr?.on('data', (chunk) => {
    output.stderr += String(chunk);
  });
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => resolve(code)),
  );
  return { child, output, exited };
}

describe('replyflow emulator (CLI)', () => {
  let running: ChildProcess | undefined;
  afterEach(() => {
    if (running?.exitCode === null) running.kill('SIGKILL');
  });

  it('prints the base URL and an example, serves the API with the given key pair, and stops on SIGTERM', async () => {
    const { child, output, exited } = replyflowEmulator([
      ...[
        '--port',
        '0',
        '--key-pair',
        'k:s:paris',
        '--time-scale',
        '0.01',
        '--log-level',
        'silent',
      ],
    ]);
    running = child;
    const baseUrl = await waitFor(() => /base URL:\s+(\S+)/.exec(output.stdout)?.[1], {
      timeout: 15_000,
      message: 'the emulator prints its base URL',
    });
    expect(output.stdout).toMatch(/curl .*\/v1\/sms .*X-API-KEY-ID: k/);
    const headers = {
      'x-api-key-id': 'k',
      'x-api-key-secret': 's',
      'content-type': 'application/json',
    };
    const sent = await fetch(`${baseUrl}/sms`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ to: '33612345678', body: 'Hi' }),
    });
    expect(sent.status).toBe(201);
    const noKey = await fetch(`${baseUrl}/sms`, { method: 'POST', body: '{}' });
    expect(apiErrorBodySchema.parse(await noKey.json()).error.status).toBe(401);
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(output.stdout).toContain('replyflow emulator stopped');
  });

  it('refuses a malformed --key-pair with a message saying how to write it', async () => {
    const { output, exited } = replyflowEmulator(['--port', '0', '--key-pair', 'only-an-id']);
    expect(await exited).not.toBe(0);
    expect(output.stderr).toContain('ID:SECRET:LOCATION');
  });
});
