import { createReadStream } from 'node:fs';
import { request } from 'node:http';
import { startChild } from '../lib/child.ts';
import { openFreshRedis } from '../lib/redis.ts';
import { fixed, markdownTable, median } from '../lib/stats.ts';
import type { CampaignPhase, PhaseContext } from './campaign-phase.ts';
import type { UploadMeasure } from './upload-process.ts';

const uploadToken = 'admin-bench-0123456789abcdef0123456789abcdef';

interface UploadRun extends UploadMeasure {
  run: number;
  seconds: number;
  rows: number;
}

/** Peak RSS of the import of a million rows (issue 22), MB. */
const goalMB = 150;

/**
 * `POST /admin/campaigns` with the file as the body (text/csv, its length told, streamed as
 * curl --data-binary would), to the admin API in a process of its own on a fresh `redis-server`
 * per run: the server's RSS waiting for the upload, its peak, and the upload's rows/s.
 */
export const uploadPhase: CampaignPhase = {
  name: 'upload',
  description:
    'POST /admin/campaigns with the file streamed, to the admin API in its own process (its RSS before and at the peak)',
  async run(context) {
    const runs: UploadRun[] = [];
    for (let run = 1; run <= context.runs; run++) {
      runs.push({ ...(await uploadOnce(context)), run });
      const last = runs.at(-1)!;
      console.log(
        `run ${run}: ${last.rows} rows in ${fixed(last.seconds)} s, RSS ${fixed(last.startMiB)} MiB at start, ` +
          `${fixed(last.memory.rssIdleMiB)} MiB listening, peak ${fixed(last.memory.maxRssMiB)} MiB`,
      );
    }
    return { report: report(runs, context), results: { runs } };
  },
};

async function uploadOnce(context: PhaseContext): Promise<Omit<UploadRun, 'run'>> {
  const server = await openFreshRedis();
  const flags = (process.env.BENCH_IMPORT_NODE_FLAGS ?? '').split(' ').filter(Boolean);
  const child = await startChild(new URL('./upload-process.ts', import.meta.url), [], {
    execArgv: flags,
  });
  try {
    const { url } = await child.ask<{ url: string }>('start', {
      redisUrl: server.url,
      adminToken: uploadToken,
    });
    const started = performance.now();
    const answer = await post(
      `${url}/admin/campaigns?name=december&bot=reminder&relativeTo=at&offset=-1d&timeZone=Europe/Paris&timeZoneColumn=tz&window=09:00-19:00&sendIfWithin=6h`,
      context.file.path,
      context.file.bytes,
    );
    const seconds = (performance.now() - started) / 1000;
    if (answer.status !== 201)
      throw new Error(`POST /admin/campaigns: ${answer.status} ${answer.body}`);
    const { rows } = JSON.parse(answer.body) as { rows: number };
    const measure = await child.ask<UploadMeasure>('measure');
    return { ...measure, seconds, rows };
  } finally {
    await child.close();
    await server.stop();
  }
}

function post(url: string, path: string, bytes: number): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${uploadToken}`,
        'content-type': 'text/csv',
        'content-length': String(bytes),
      },
    });
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', reject);
    });
    req.on('error', reject);
    createReadStream(path).pipe(req);
  });
}

function report(runs: readonly UploadRun[], context: PhaseContext): string {
  const of = (pick: (run: UploadRun) => number) => median(runs.map(pick));
  const rows: Array<[string, (run: UploadRun) => number, number]> = [
    ['seconds, the whole request', (run) => run.seconds, 1],
    ['rows per second', (run) => context.file.rows / run.seconds, 0],
    ['peak RSS of the server, MiB', (run) => run.memory.maxRssMiB, 1],
    ['RSS listening, before the upload, MiB', (run) => run.memory.rssIdleMiB, 1],
    [
      'the upload’s growth (peak − listening), MiB',
      (run) => run.memory.maxRssMiB - run.memory.rssIdleMiB,
      1,
    ],
    ['RSS at its start (node, tsx), MiB', (run) => run.startMiB, 1],
  ];
  const flags = process.env.BENCH_IMPORT_NODE_FLAGS ?? '';
  const peakMB = of((run) => run.memory.maxRssMiB) * 1.048576;
  return [
    `medians of ${context.runs} runs, ${context.file.rows.toLocaleString('en-US')} rows, a fresh redis-server per run${flags ? `, node ${flags}` : ''}`,
    markdownTable(
      ['median', 'POST /admin/campaigns'],
      rows.map(([label, pick, decimals]) => [label, fixed(of(pick), decimals)]),
    ),
    `peak RSS of the server: ${fixed(peakMB)} MB, a whole server (every role, Express, the ` +
      'dashboard) with a default heap; what the upload costs it is the growth above. The goal ' +
      `(≤ ${goalMB} MB for 1,000,000 rows) is judged on the import command: the cli phase.`,
  ].join('\n\n');
}
