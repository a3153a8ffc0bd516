import { execFile } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningEmulator, startEmulator } from '../../../src/emulator/index.ts';

let emulator: RunningEmulator;

beforeAll(async () => {
  emulator = await startEmulator({
    port: 0,
    keyPairs: [{ id: 'k', secret: 's', location: 'paris' }],
  });
});
afterAll(async () => {
  await emulator.close();
});

/** Runs the real `replyflow` binary against the emulator, asynchronously so the emulator can answer. */
function replyflow(args: string[], env: Record<string, string | undefined> = {}) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      ['bin/replyflow.js', ...args],
      {
        env: {
          PATH: process.env.PATH,
          REPLYFLOW_PROVIDER_URL: emulator.baseUrl,
          REPLYFLOW_API_KEY_ID: 'k',
          REPLYFLOW_API_KEY_SECRET: 's',
          REPLYFLOW_LOCATION: 'paris',
          REPLYFLOW_DEFAULT_COUNTRY: 'FR',
          ...env,
        },
      },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
    );
  });
}

describe('replyflow client commands', () => {
  it('sms send prints the accepted message, and --json prints the service object', async () => {
    const human = await replyflow(['sms', 'send', '--to', '06 12 34 56 78', '--body', 'Hi']);
    expect(human).toMatchObject({ code: 0, stderr: '' });
    expect(human.stdout).toMatch(/^status\s+pending$/m);
    expect(human.stdout).toMatch(/^to\s+33612345678$/m);
    const json = await replyflow(['sms', 'send', '--to', '+33612345678', '--body', 'Hi', '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ status: 'pending', from: '' });
  });

  it('groups create then groups list shows an aligned table', async () => {
    await replyflow(['groups', 'create', 'VIP customers']);
    const { stdout } = await replyflow(['groups', 'list']);
    const [header, row] = stdout.split('\n');
    expect(header).toMatch(/^id\s+name\s+source\s+createdAt$/);
    expect(row?.indexOf('VIP customers')).toBe(header?.indexOf('name'));
  });

  it('an expected error prints its code and message to stderr and exits 1, without a stack trace', async () => {
    const result = await replyflow(['sms', 'send', '--to', '01 42 92 81 00', '--body', 'Hi']);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^error NOT_A_MOBILE_NUMBER: .*landline/);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('says which variables to set when no location is configured', async () => {
    const result = await replyflow(['columns', 'list'], {
      REPLYFLOW_PROVIDER_URL: undefined,
      REPLYFLOW_API_KEY_ID: undefined,
      REPLYFLOW_API_KEY_SECRET: undefined,
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('error CONFIG_INVALID: no location is configured');
    expect(result.stderr).toContain('REPLYFLOW_API_KEY_SECRET');
  });

  it('with --json, an error is JSON too', async () => {
    const result = await replyflow(['sms', 'get', 'missing', '--json']);
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stderr)).toMatchObject({
      error: { code: 'PROVIDER_REJECTED', status: 404, mayHaveReachedService: false },
    });
  });
});
