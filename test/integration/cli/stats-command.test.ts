import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadBots } from '../../../src/bot/load-bots.ts';
import { activeCounters } from '../../../src/stats/counter-names.ts';
import { location, type ReplyLoop, settle, startReplyLoop } from '../../support/reply-loop.ts';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const botsDir = fileURLToPath(new URL('../../../bots', import.meta.url));

/** Runs the real `replyflow` binary with `env` only. */
function replyflow(args: string[], env: Record<string, string>) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      ['bin/replyflow.js', ...args],
      { cwd: root, env: { PATH: process.env.PATH ?? '', ...env } },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
    );
  });
}

describe('replyflow stats show | reconcile, against the deployment store', () => {
  let loop: ReplyLoop;
  let env: Record<string, string>;
  beforeAll(async () => {
    loop = await startReplyLoop({ registry: await loadBots(botsDir) });
    env = {
      REDIS_URL: loop.redis!.url!,
      REPLYFLOW_REDIS_PREFIX: loop.redis!.prefix,
      REPLYFLOW_BOTS_DIR: botsDir,
      REPLYFLOW_PROVIDER_URL: loop.emulator.baseUrl,
      REPLYFLOW_API_KEY_ID: 'k',
      REPLYFLOW_API_KEY_SECRET: 's',
      REPLYFLOW_LOCATION: location,
      LOG_LEVEL: 'warn',
    };
    for (const phone of ['33612345601', '33612345602']) {
      await loop.start(phone, 'survey', {});
      await loop.waitForBodies(phone, 1);
      await settle(loop, phone);
    }
  }, 30_000);
  afterAll(() => loop?.close());

  it('show prints each bot with its active conversations and today’s starts', {
    timeout: 60_000,
  }, async () => {
    const run = await replyflow(['stats', 'show'], env);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    const survey = run.stdout.split('\n').find((line) => /^paris\s+survey\s/.test(line));
    // location, bot, active, started today, …
    expect(survey?.split(/\s+/).slice(0, 4)).toEqual(['paris', 'survey', '2', '2']);
  });

  it('reconcile corrects an injected drift and says what it corrected', {
    timeout: 60_000,
  }, async () => {
    const name = activeCounters(location, 'survey');
    const right = await loop.store.readCounters(name);
    expect(right['*']).toBe(2);
    await loop.store.adjustCounters([{ name, field: '*', by: 7, ttlMs: 0 }]);
    const run = await replyflow(['stats', 'reconcile'], env);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toContain('2 active conversations recounted; 1 counters corrected');
    expect(run.stdout).toContain(`${name} *: -7`);
    expect(await loop.store.readCounters(name)).toEqual(right);
  });

  it('show names an unknown location clearly', { timeout: 60_000 }, async () => {
    const run = await replyflow(['stats', 'show', '--location', 'nowhere'], env);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/replyflow stats show: .*unknown location 'nowhere'/);
  });
});
