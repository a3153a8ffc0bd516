import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadBots } from '../../../src/bot/load-bots.ts';
import { location, type ReplyLoop, startReplyLoop } from '../../support/reply-loop.ts';
import { waitFor } from '../../support/wait-for.ts';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const botsDir = fileURLToPath(new URL('../../../bots', import.meta.url));

/** Runs the real `replyflow` binary with `env` only (no REDIS_URL from the test's own env). */
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

describe('the commands that read the store, on a Redis Cluster (REDIS_CLUSTER_NODES alone)', () => {
  let loop: ReplyLoop;
  let env: Record<string, string>;
  beforeAll(async () => {
    loop = await startReplyLoop({ registry: await loadBots(botsDir), store: 'cluster' });
    env = {
      REDIS_CLUSTER_NODES: loop.redis!.clusterNodes!.join(','),
      REPLYFLOW_REDIS_PREFIX: loop.redis!.prefix,
      REPLYFLOW_BOTS_DIR: botsDir,
      REPLYFLOW_PROVIDER_URL: loop.emulator.baseUrl,
      REPLYFLOW_API_KEY_ID: 'k',
      REPLYFLOW_API_KEY_SECRET: 's',
      REPLYFLOW_LOCATION: location,
      LOG_LEVEL: 'warn',
    };
  }, 30_000);
  afterAll(() => loop?.close());

  it('results prints the results kept on the cluster', { timeout: 60_000 }, async () => {
    const phone = '33612345501';
    await loop.start(phone, 'survey', {});
    for (const [n, answer] of ['1', '7', 'great'].entries()) {
      await loop.waitForBodies(phone, n + 1);
      await loop.reply(phone, answer);
    }
    await waitFor(
      async () => (await loop.store.getConversation({ location, phone }))?.status === 'done',
      { timeout: 20_000, message: 'the survey answered' },
    );
    const run = await replyflow(['results', 'survey', '--format', 'json'], env);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(run.stdout)).toEqual([
      expect.objectContaining({
        phone,
        endCode: 'completed',
        fields: { visit: 'excellent', score: 7, comment: 'great', completed: true },
      }),
    ]);
  });

  it('conversations start writes a start the cluster then holds', { timeout: 60_000 }, async () => {
    const run = await replyflow(
      ['conversations', 'start', 'survey', '--phone', '+33 6 12 34 55 02', '--input', '{}'],
      env,
    );
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(run.stdout)).toMatchObject({ bot: 'survey', phone: '33612345502' });
    await waitFor(
      async () =>
        (await loop.store.getConversation({ location, phone: '33612345502' }))?.status === 'active',
      { timeout: 20_000, message: 'the started conversation on the cluster' },
    );
  });

  it('bots check counts the live conversations on the cluster', { timeout: 60_000 }, async () => {
    const run = await replyflow(['bots', 'check', '--bots', botsDir, '--json'], env);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    const report = JSON.parse(run.stdout) as { total: number; groups: Array<{ bot: string }> };
    expect(report.total).toBe(1);
    expect(report.groups).toEqual([
      expect.objectContaining({ bot: 'survey', count: 1, verdict: 'unchanged' }),
    ]);
  });

  it('campaigns, suppressions, stats, webhooks deliveries and conversations cancel read the cluster', {
    timeout: 120_000,
  }, async () => {
    const later = new Date(Date.now() + 3_600_000).toISOString();
    await loop.store.addSuppressions(
      location,
      [{ phone: '33612345511', at: Date.now(), reason: 'imported' }],
      'import',
    );
    const folder = await mkdtemp(join(tmpdir(), 'rf-cluster-cli-'));
    try {
      const file = join(folder, 'recipients.csv');
      await writeFile(file, 'phone\n+33612345521\n+33612345522\n');
      // The writes the reads below find: a campaign, and a keyed start to cancel.
      const [created, scheduled] = await Promise.all([
        replyflow(
          ['campaigns', 'create', 'cl-camp', '--bot', 'survey', '--file', file, '--at', later],
          env,
        ),
        replyflow(
          [
            'conversations',
            'start',
            'survey',
            '--phone',
            '+33612345531',
            '--input',
            '{}',
            '--key',
            'cl-key',
            '--at',
            later,
          ],
          env,
        ),
      ]);
      expect(created, created.stderr).toMatchObject({ code: 0 });
      expect(scheduled, scheduled.stderr).toMatchObject({ code: 0 });

      const [list, show, suppressed, exported, stats, deliveries, cancelled] = await Promise.all([
        replyflow(['campaigns', 'list'], env),
        replyflow(['campaigns', 'show', 'cl-camp'], env),
        replyflow(['suppressions', 'list'], env),
        replyflow(['suppressions', 'export'], env),
        replyflow(['stats', 'show'], env),
        replyflow(['webhooks', 'deliveries', '--json'], env),
        replyflow(['conversations', 'cancel', 'cl-key'], env),
      ]);
      for (const run of [list, show, suppressed, exported, stats, deliveries, cancelled]) {
        expect(run, run.stderr).toMatchObject({ code: 0, stderr: '' });
      }
      expect(list.stdout).toContain('cl-camp');
      expect(show.stdout).toContain('cl-camp');
      expect(show.stdout).toContain('survey');
      expect(suppressed.stdout).toContain('336•••••511');
      expect(exported.stdout).toContain('33612345511');
      expect(stats.stdout).toContain('survey');
      expect(deliveries.stdout.trim()).toBe('');
      expect(cancelled.stdout).toContain('cl-key');
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });

  it('every command that opens the store does it through openDeploymentStore', async () => {
    // REDIS_URL alone would be a command's own connection; openDeploymentStore reads both.
    const cli = fileURLToPath(new URL('../../../src/cli', import.meta.url));
    const own: string[] = [];
    for (const name of await readdir(cli)) {
      if (!name.endsWith('.ts') || name === 'open-deployment-store.ts') continue;
      const text = await readFile(join(cli, name), 'utf8');
      if (/redisUrl|openStore\(|createRedisStore|new Redis\b|connectRedis/.test(text)) {
        own.push(name);
      }
    }
    // serve-commands checks that web and worker have one or the other before `start` opens it.
    expect(own).toEqual(['serve-commands.ts']);
  });
});
