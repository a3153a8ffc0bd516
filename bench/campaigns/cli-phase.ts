import { execFile } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openFreshRedis } from '../lib/redis.ts';
import { fixed, markdownTable, median } from '../lib/stats.ts';
import type { CampaignPhase, PhaseContext } from './campaign-phase.ts';
import { generateRecipients } from './generate-recipients.ts';

/** What the preloaded `report-memory.mjs` writes at a process's exit. */
interface ProcessMemory {
  /** RSS before anything loaded (node alone), MiB. */
  startMiB: number;
  /** The kernel's peak RSS of the process's whole life, MiB. */
  maxRssMiB: number;
  /** What the process alone held at exit (RSS less the pages shared with other processes), MiB. */
  privateMiB: number;
}

/** The command's processes: the one that imports, and bin/replyflow.js's launcher if any. */
interface CommandMemory extends ProcessMemory {
  /** Peak RSS of the launcher that ran the import in a child node, MiB (0: no launcher). */
  launcherMiB: number;
  /** The launcher's own memory (its RSS less node's shared binary), MiB (0: no launcher). */
  launcherPrivateMiB: number;
}

interface CliRun {
  run: number;
  /** The same command on a 10-row file: start-up, the library, the bots, the store. */
  small: CommandMemory & { seconds: number };
  large: CommandMemory & { seconds: number };
}

/** Peak RSS of the import of a million rows (issue 22), MB. */
const goalMB = 150;

const root = fileURLToPath(new URL('../..', import.meta.url));
const botsDir = fileURLToPath(new URL('./bots/', import.meta.url));
const reportMemory = fileURLToPath(new URL('./report-memory.mjs', import.meta.url));

/**
 * The real `replyflow campaigns create` (bin/replyflow.js under tsx, a bots folder that imports
 * replyflow), into a fresh `redis-server` per run: the whole command's peak RSS on the file,
 * and on a 10-row file (what the command holds before its rows), so the import's own growth
 * is the difference. No flag but BENCH_IMPORT_NODE_FLAGS' is given to node.
 */
export const cliPhase: CampaignPhase = {
  name: 'cli',
  description:
    'replyflow campaigns create (bin/replyflow.js, the bots loaded): the whole process’s peak RSS, on the file and on 10 rows',
  async run(context) {
    const small = await smallFile(context);
    const runs: CliRun[] = [];
    for (let run = 1; run <= context.runs; run++) {
      const smallRun = await createOnce(small, context, `small-${run}`);
      const largeRun = await createOnce(context.file.path, context, `large-${run}`);
      runs.push({ run, small: smallRun, large: largeRun });
      console.log(
        `run ${run}: ${context.file.rows} rows in ${fixed(largeRun.seconds)} s, peak ${fixed(largeRun.maxRssMiB)} MiB, launcher ${fixed(largeRun.launcherMiB)} MiB ` +
          `(10 rows: peak ${fixed(smallRun.maxRssMiB)} MiB in ${fixed(smallRun.seconds)} s; node alone ${fixed(largeRun.startMiB)} MiB)`,
      );
    }
    return { report: report(runs, context), results: { runs } };
  },
};

/** Ten good rows of the same shape (rows 100 to 109 of a generated file: slots without faults). */
async function smallFile(context: PhaseContext): Promise<string> {
  const made = await generateRecipients(join(context.dir, 'small-source.csv'), 110);
  const lines = readFileSync(made.path, 'utf8').split('\n');
  const path = join(context.dir, 'small.csv');
  writeFileSync(path, `${[lines[0], ...lines.slice(101, 111)].join('\n')}\n`);
  rmSync(made.path);
  return path;
}

async function createOnce(
  file: string,
  context: PhaseContext,
  label: string,
): Promise<CommandMemory & { seconds: number }> {
  const server = await openFreshRedis();
  const reportPath = join(context.dir, `memory-${label}.json`);
  const flags = (process.env.BENCH_IMPORT_NODE_FLAGS ?? '').split(' ').filter(Boolean);
  rmSync(reportPath, { force: true });
  try {
    const started = performance.now();
    await new Promise<void>((resolve, reject) => {
      execFile(
        process.execPath,
        [
          ...flags,
          '--import',
          reportMemory,
          'bin/replyflow.js',
          'campaigns',
          'create',
          'december',
          '--bot',
          'reminder',
          '--file',
          file,
          '--relative-to',
          'at',
          '--offset',
          '-1d',
          '--time-zone',
          'Europe/Paris',
          '--time-zone-column',
          'tz',
          '--window',
          '09:00-19:00',
          '--send-if-within',
          '6h',
          '--errors',
          join(context.dir, `errors-${label}.csv`),
        ],
        {
          cwd: root,
          env: {
            PATH: process.env.PATH ?? '',
            HOME: process.env.HOME ?? '',
            REDIS_URL: server.url,
            REPLYFLOW_REDIS_PREFIX: 'rf:',
            REPLYFLOW_PROVIDER_URL: 'http://127.0.0.1:9/v1',
            REPLYFLOW_API_KEY_ID: 'k',
            REPLYFLOW_API_KEY_SECRET: 's',
            REPLYFLOW_LOCATION: 'paris',
            REPLYFLOW_DEFAULT_COUNTRY: 'FR',
            REPLYFLOW_WEBHOOK_SECRET: 'bench-secret-0123456789abcdef',
            REPLYFLOW_BOTS_DIR: botsDir,
            LOG_LEVEL: 'warn',
            BENCH_MEMORY_REPORT: reportPath,
          },
          maxBuffer: 16 * 1024 * 1024,
        },
        (error, stdout, stderr) => {
          if (error) reject(new Error(`replyflow campaigns create failed: ${stderr || stdout}`));
          else if (!/^rows\s+[\d,]+$/m.test(stdout)) {
            reject(new Error(`replyflow campaigns create printed no report:\n${stdout}`));
          } else resolve();
        },
      );
    });
    const seconds = (performance.now() - started) / 1000;
    return { ...commandMemory(readFileSync(reportPath, 'utf8')), seconds };
  } finally {
    await server.stop();
  }
}

/**
 * The report's lines, one per process: the importing process is the largest; a second one is
 * bin/replyflow.js's launcher (node alone, waiting for its child).
 */
function commandMemory(lines: string): CommandMemory {
  const processes = lines
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as ProcessMemory)
    .sort((a, b) => b.maxRssMiB - a.maxRssMiB);
  const [importing, launcher] = processes;
  if (!importing || processes.length > 2) {
    throw new Error(`expected one or two processes in the memory report, got:\n${lines}`);
  }
  return {
    ...importing,
    launcherMiB: launcher?.maxRssMiB ?? 0,
    launcherPrivateMiB: launcher?.privateMiB ?? 0,
  };
}

function report(runs: readonly CliRun[], context: PhaseContext): string {
  const of = (pick: (run: CliRun) => number) => median(runs.map(pick));
  const rows: Array<[string, (run: CliRun) => number, number]> = [
    ['seconds, the whole command', (run) => run.large.seconds, 1],
    ['rows per second, the whole command', (run) => context.file.rows / run.large.seconds, 0],
    ['peak RSS of the importing process, MiB', (run) => run.large.maxRssMiB, 1],
    ['peak RSS of bin/replyflow.js’s launcher (0: none), MiB', (run) => run.large.launcherMiB, 1],
    ['peak RSS of the importing process on 10 rows, MiB', (run) => run.small.maxRssMiB, 1],
    [
      'the import’s growth (peak − peak on 10 rows), MiB',
      (run) => run.large.maxRssMiB - run.small.maxRssMiB,
      1,
    ],
    ['RSS of node alone, before tsx, MiB', (run) => run.large.startMiB, 1],
  ];
  const flags = process.env.BENCH_IMPORT_NODE_FLAGS ?? '';
  const peakMB = of((run) => run.large.maxRssMiB) * 1.048576;
  const togetherMB = of((run) => run.large.maxRssMiB + run.large.launcherPrivateMiB) * 1.048576;
  return [
    `medians of ${context.runs} runs, ${context.file.rows.toLocaleString('en-US')} rows, a fresh redis-server per run${flags ? `, node ${flags}` : ''}`,
    markdownTable(
      ['median', 'replyflow campaigns create'],
      rows.map(([label, pick, decimals]) => [label, fixed(of(pick), decimals)]),
    ),
    `peak RSS of the importing process, goal ≤ ${goalMB} MB for 1,000,000 rows: ${fixed(peakMB)} MB, ` +
      (context.file.rows === 1_000_000
        ? peakMB <= goalMB
          ? 'met'
          : 'NOT met'
        : 'not comparable (another row count)') +
      ` (with the launcher’s own memory: ${fixed(togetherMB)} MB, ${togetherMB <= goalMB ? 'within' : 'over'} the goal)`,
  ].join('\n\n');
}
