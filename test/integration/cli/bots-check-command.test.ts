import { execFile } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadBots } from '../../../src/bot/load-bots.ts';
import { testRedisUrl } from '../../support/redis.ts';
import { type ReplyLoop, startReplyLoop } from '../../support/reply-loop.ts';

/** Runs the real `replyflow` binary against the test Redis and the loop's key prefix. */
function replyflow(args: string[], env: Record<string, string | undefined>) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      ['bin/replyflow.js', ...args],
      { env: { PATH: process.env.PATH, ...env } },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
    );
  });
}

const v1 = 'test/fixtures/versions/v1';

describe('replyflow bots check (real Redis)', () => {
  let loop: ReplyLoop;
  let env: Record<string, string>;

  beforeAll(async () => {
    // Version 1 runs three conversations through the engine: two wait at q1, one at q2.
    loop = await startReplyLoop({ registry: await loadBots(v1) });
    for (const phone of ['33611110001', '33611110002', '33611110003']) {
      await loop.start(phone, 'kit-survey');
      await loop.waitForBodies(phone, 1);
    }
    await loop.reply('33611110003', 'yes');
    await loop.waitForBodies('33611110003', 2);
    env = { REDIS_URL: testRedisUrl(), REPLYFLOW_REDIS_PREFIX: loop.redis!.prefix };
  }, 30_000);
  afterAll(() => loop?.close());

  it('reports a removed state as breaking and exits 1', async () => {
    const run = await replyflow(
      ['bots', 'check', '--bots', 'test/fixtures/versions/v2-removed'],
      env,
    );
    const lines = run.stdout.split('\n');
    expect(lines[0]).toMatch(/^bot\s+version\s+state\s+live\s+state kept\s+change\s+outcome$/);
    expect(lines.find((line) => /\sq1\s/.test(line))).toMatch(
      /^kit-survey\s+[0-9a-f]{12}\s+q1\s+2\s+yes\s+STRUCTURE\s+ENDS \(version_changed\): new structure, no migrate\(\)$/,
    );
    expect(lines.find((line) => /\sq2\s/.test(line))).toMatch(
      /^kit-survey\s+[0-9a-f]{12}\s+q2\s+1\s+NO\s+STRUCTURE\s+ENDS \(version_changed\)/,
    );
    expect(run.stdout).toContain('3 live conversation(s); 3 would END at their next event');
    expect(run.code).toBe(1);
  });

  it('keeps the conversations through a change of texts alone, and ends them when a state is renamed', async () => {
    const texts = await replyflow(
      ['bots', 'check', '--bots', 'test/fixtures/versions/v1-text'],
      env,
    );
    expect(texts.stdout).toMatch(/q1\s+2\s+yes\s+same structure\s+resumes/);
    expect(texts.stdout).toMatch(/q2\s+1\s+yes\s+same structure\s+resumes/);
    expect(texts.stdout).toContain('none would end');
    expect(texts.code).toBe(0);
    const renamed = await replyflow(
      ['bots', 'check', '--bots', 'test/fixtures/versions/v2-renamed'],
      env,
    );
    expect(renamed.stdout).toMatch(/q2\s+1\s+NO\s+STRUCTURE\s+ENDS \(version_changed\)/);
    expect(renamed.code).toBe(1);
  });

  it('reports a bot with migrate as safe and exits 0', async () => {
    const run = await replyflow(
      ['bots', 'check', '--bots', 'test/fixtures/versions/v2-migrate', '--json'],
      env,
    );
    expect(run.stderr).toBe('');
    const report = JSON.parse(run.stdout);
    expect(report.total).toBe(3);
    expect(report.breaking).toEqual([]);
    expect(report.groups).toEqual([
      expect.objectContaining({ state: 'q1', count: 2, stateExists: true, verdict: 'migrate' }),
      expect.objectContaining({ state: 'q2', count: 1, stateExists: false, verdict: 'migrate' }),
    ]);
    expect(run.code).toBe(0);
  });

  it('says an unchanged bot resumes, and refuses to run without REDIS_URL', async () => {
    const same = await replyflow(
      ['bots', 'check', '--bots', 'test/fixtures/versions/v1-same'],
      env,
    );
    expect(same.stdout).toMatch(
      /q1\s+2\s+yes\s+same structure\s+resumes \(a change of texts or code keeps them\)/,
    );
    expect(same.code).toBe(0);
    const noRedis = await replyflow(['bots', 'check', '--bots', v1], {});
    expect(noRedis.code).toBe(1);
    expect(noRedis.stderr).toMatch(
      /CONFIG_INVALID: bots check reads the live conversations in the deployment's store: set REDIS_URL \(one Redis\) or REDIS_CLUSTER_NODES/,
    );
  });
});
