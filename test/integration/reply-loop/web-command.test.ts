import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, onTestFailed } from 'vitest';
import { createBotRegistry } from '../../../src/bot/bot-registry.ts';
import echo from '../../fixtures/bots/echo-bot.ts';
import { echoConversations, postTurn, waitUntilSettled } from '../../support/echo-load.ts';
import { location, startReplyLoop, webhookSecret } from '../../support/reply-loop.ts';
import { waitFor } from '../../support/wait-for.ts';
import {
  spawnReplyflowProcess,
  stopWorkerProcess,
  type WorkerProcess,
  workerEnv,
} from '../../support/worker-process.ts';

const root = fileURLToPath(new URL('../../..', import.meta.url));

describe('replyflow web', () => {
  it('stores and acknowledges notifications that a `replyflow worker` process answers', async () => {
    // The emulator and the shared Redis only: no replyflow role runs in this process.
    const loop = await startReplyLoop({
      registry: createBotRegistry([{ bot: echo, file: 'echo-bot.ts' }]),
      roles: { web: false, worker: false, sender: false, scheduler: false },
      webhook: false,
    });
    const output: string[] = [];
    onTestFailed(() => console.log(output.join('\n')));
    const children: WorkerProcess[] = [];
    try {
      const env = { ...workerEnv(loop), LOG_LEVEL: 'debug', PORT: '0' };
      const web = spawnReplyflowProcess('web', env, output);
      children.push(web);
      let url = '';
      await waitFor(
        () => {
          const line = output.find(
            (l) => l.startsWith(`[web ${web.pid}]`) && l.includes('"msg":"replyflow is listening"'),
          );
          url = /"url":"([^"]+)"/.exec(line ?? '')?.[1] ?? '';
          return url !== '';
        },
        { timeout: 20_000, interval: 50 },
      );
      const conversations = echoConversations(20, 1, 33_614_000_000);
      const webhookUrl = `${url}/webhooks/${location}/${webhookSecret}`;
      // Acknowledged with nobody to answer yet: the notifications wait in Redis.
      await postTurn(webhookUrl, conversations, 0, 'web');

      const worker = spawnReplyflowProcess('worker', env, output);
      children.push(worker);
      await postTurn(webhookUrl, conversations, 1, 'web');
      const left = await waitUntilSettled(loop.store, loop.emulator.url, conversations, 30_000);
      expect(left).toEqual([]);
      // Every step ran in the worker; the web process only stored and acknowledged.
      expect(web.steps).toBe(0);
      expect(worker.steps).toBeGreaterThanOrEqual(40);
    } finally {
      await Promise.all(children.map((child) => stopWorkerProcess(child)));
      await loop.close();
    }
  }, 60_000);

  it.each(['web', 'worker'])(
    'replyflow %s refuses to start without REDIS_URL, and says why',
    async (command) => {
      const child = spawn(process.execPath, ['bin/replyflow.js', command], {
        cwd: root,
        env: {
          PATH: process.env.PATH ?? '',
          REPLYFLOW_PROVIDER_URL: 'http://127.0.0.1:9/v1',
          REPLYFLOW_API_KEY_ID: 'k',
          REPLYFLOW_API_KEY_SECRET: 's',
          REPLYFLOW_LOCATION: location,
          REPLYFLOW_WEBHOOK_SECRET: webhookSecret,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString('utf8');
      });
      const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
      expect(code).toBe(1);
      expect(stderr).toContain(`replyflow ${command}: CONFIG_INVALID`);
      expect(stderr).toContain('set REDIS_URL');
    },
    20_000,
  );
});
