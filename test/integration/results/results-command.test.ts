import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBotRegistry } from '../../../src/bot/bot-registry.ts';
import poll from '../../fixtures/results-bots/poll.ts';
import {
  location,
  type ReplyLoop,
  replyNotification,
  startReplyLoop,
} from '../../support/reply-loop.ts';
import { waitFor } from '../../support/wait-for.ts';
import { spawnWorkerProcess, type WorkerProcess, workerEnv } from '../../support/worker-process.ts';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const botsDir = fileURLToPath(new URL('../../fixtures/results-bots', import.meta.url));
const colours = ['red', 'green', 'blue'];
const phones = Array.from({ length: 30 }, (_, i) => `3361400${String(i).padStart(4, '0')}`);

describe('replyflow results, after redeliveries and a worker killed midway', () => {
  let loop: ReplyLoop;
  const output: string[] = [];
  const workers: WorkerProcess[] = [];
  beforeAll(async () => {
    // The web role takes notifications in; worker processes (the real CLI) answer them.
    loop = await startReplyLoop({
      registry: createBotRegistry([{ bot: poll, file: 'poll.ts' }]),
      roles: { worker: false, sender: false, scheduler: false },
    });
  });
  afterAll(async () => {
    await Promise.all(workers.map((w) => w.kill('SIGKILL')));
    await loop.close();
  });

  it('lists each conversation’s answer once, as CSV and JSON', { timeout: 90_000 }, async () => {
    const env = { ...workerEnv(loop), REPLYFLOW_BOTS_DIR: botsDir };
    workers.push(spawnWorkerProcess(env, output));
    for (const phone of phones) await loop.start(phone, 'poll');
    for (const phone of phones) await loop.waitForBodies(phone, 1, 30_000);
    const answer = (i: number) => colours[i % 3]!;
    // Each answer delivered 11 times, the first worker killed halfway through.
    for (const [i, phone] of phones.entries()) {
      const notification = replyNotification(
        `answer-${phone}`,
        phone,
        ` ${answer(i).toUpperCase()} `,
      );
      for (let n = 0; n < 11; n++) expect(await loop.notify(notification)).toBe(200);
      if (i === phones.length / 2) {
        await workers[0]!.kill('SIGKILL');
        workers.push(spawnWorkerProcess(env, output));
      }
    }
    await waitFor(
      async () => {
        const records = await Promise.all(
          phones.map((phone) => loop.store.getConversation({ location, phone })),
        );
        return records.every((r) => r?.status === 'done');
      },
      {
        timeout: 60_000,
        message: `every poll answered (worker output: ${output.slice(-5).join(' | ')})`,
      },
    );

    const run = promisify(execFile);
    const cli = (...args: string[]) =>
      run(process.execPath, ['bin/replyflow.js', 'results', 'poll', ...args], { cwd: root, env });
    const csv = (await cli('--format', 'csv')).stdout.trim().split('\n');
    expect(csv[0]).toBe('location,phone,bot,botVersion,runId,startedAt,endedAt,endCode,colour');
    const rows = csv.slice(1).map((line) => line.split(','));
    expect(rows).toHaveLength(phones.length);
    expect(new Map(rows.map((row) => [row[1], [row[7], row[8]]]))).toEqual(
      new Map(phones.map((phone, i) => [phone, ['answered', answer(i)]])),
    );

    const json = JSON.parse((await cli('--format', 'json', '--location', location)).stdout);
    expect(json).toHaveLength(phones.length);
    expect(json[0]).toMatchObject({ bot: 'poll', fields: { colour: expect.any(String) } });
    const none = JSON.parse(
      (await cli('--format', 'json', '--since', '2100-01-01T00:00:00Z')).stdout,
    );
    expect(none).toEqual([]);
    await expect(cli('--format', 'xml')).rejects.toMatchObject({
      stderr: expect.stringContaining('--format must be csv or json'),
    });
  });
});
