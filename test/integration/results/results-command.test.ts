import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadBots } from '../../../src/bot/load-bots.ts';
import {
  location,
  type ReplyLoop,
  replyNotification,
  startReplyLoop,
} from '../../support/reply-loop.ts';
import { waitFor } from '../../support/wait-for.ts';
import { spawnWorkerProcess, type WorkerProcess, workerEnv } from '../../support/worker-process.ts';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const botsDir = fileURLToPath(new URL('../../../bots', import.meta.url));
const phones = Array.from({ length: 20 }, (_, i) => `3361400${String(i).padStart(4, '0')}`);
/** Each phone's answers to the reference survey: a choice, a score, a comment. */
const answersOf = (i: number) => [String((i % 3) + 1), String(i % 11), `comment, "number" ${i}`];

describe('replyflow results survey, after 11 redeliveries and a worker killed midway', () => {
  let loop: ReplyLoop;
  const output: string[] = [];
  const workers: WorkerProcess[] = [];
  beforeAll(async () => {
    // The web role takes notifications in; worker processes (the real CLI) run bots/.
    loop = await startReplyLoop({
      registry: await loadBots(botsDir),
      roles: { worker: false, sender: false, scheduler: false },
    });
  });
  afterAll(async () => {
    await Promise.all(workers.map((w) => w.kill('SIGKILL')));
    await loop.close();
  });

  it('lists each conversation’s answers once, as CSV and JSON', { timeout: 120_000 }, async () => {
    const env = { ...workerEnv(loop), REPLYFLOW_BOTS_DIR: botsDir };
    workers.push(spawnWorkerProcess(env, output));
    for (const phone of phones) await loop.start(phone, 'survey', {});
    // Each answer delivered 11 times; the first worker is killed halfway through.
    for (const [i, phone] of phones.entries()) {
      for (const [n, answer] of answersOf(i).entries()) {
        const notification = replyNotification(`survey-${phone}-${n}`, phone, answer);
        for (let k = 0; k < 11; k++) expect(await loop.notify(notification)).toBe(200);
      }
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
        timeout: 90_000,
        message: `every survey answered (worker output: ${output.slice(-5).join(' | ')})`,
      },
    );

    const run = promisify(execFile);
    const cli = (...args: string[]) =>
      run(process.execPath, ['bin/replyflow.js', 'results', 'survey', ...args], { cwd: root, env });
    const rows = parse((await cli('--format', 'csv')).stdout, { columns: true }) as Array<
      Record<string, string>
    >;
    expect(rows).toHaveLength(phones.length);
    const visits = ['excellent', 'fine', 'disappointing'];
    for (const [i, phone] of phones.entries()) {
      const mine = rows.filter((row) => row.phone === phone);
      expect(mine, phone).toHaveLength(1);
      expect(mine[0]).toMatchObject({
        bot: 'survey',
        endCode: 'completed',
        visit: visits[i % 3],
        score: String(i % 11),
        comment: `comment, "number" ${i}`,
        completed: 'true',
      });
    }

    const json = JSON.parse((await cli('--format', 'json', '--location', location)).stdout);
    expect(json).toHaveLength(phones.length);
    const none = JSON.parse(
      (await cli('--format', 'json', '--since', '2100-01-01T00:00:00Z')).stdout,
    );
    expect(none).toEqual([]);
    await expect(cli('--format', 'xml')).rejects.toMatchObject({
      stderr: expect.stringContaining('--format must be csv or json'),
    });
  });
});
