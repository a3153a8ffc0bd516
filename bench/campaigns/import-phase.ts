import { join } from 'node:path';
import { startChild } from '../lib/child.ts';
import { fixed, markdownTable, median } from '../lib/stats.ts';
import type { CampaignPhase, PhaseContext } from './campaign-phase.ts';
import type { GeneratedFile } from './generate-recipients.ts';
import type { ImportMeasure, ImportRequest, ImportVariant } from './import-process.ts';

interface ImportRun extends ImportMeasure {
  variant: ImportVariant;
  run: number;
}

/** Peak RSS the import of a million rows must stay under (issue 22), in MB. */
const goalMB = 150;

/**
 * Reads the file with each variant in its own process, `runs` times in alternating order (so a
 * drift of the machine favours neither), and reports rows/s and memory, medians. replyflow
 * reads the file with 2 % bad rows; the baseline reads it without the quotes left open
 * (0.2 % of the rows), which derail csv-parse: one more baseline run on the whole file shows
 * how many rows it then gives a result for.
 */
export const importPhase: CampaignPhase = {
  name: 'import',
  description:
    'readRecipients + sendTimeOf + the summary + the errors file, vs csv-parse piped into a loop that normalises the phone',
  async run(context) {
    const runs: ImportRun[] = [];
    for (let run = 1; run <= context.runs; run++) {
      const order = (
        (run % 2 === 1 ? ['replyflow', 'baseline'] : ['baseline', 'replyflow']) as ImportVariant[]
      ).filter((variant) => context.baselines || variant === 'replyflow');
      for (const variant of order) {
        const file = variant === 'replyflow' ? context.file : context.cleanFile;
        runs.push({ ...(await importOnce(variant, file, context)), variant, run });
        console.log(describe(runs.at(-1)!, file));
      }
    }
    const derailed = context.baselines
      ? await importOnce('baseline', context.file, context)
      : undefined;
    if (derailed) {
      console.log(
        `baseline on the file with quotes left open: ${derailed.rows} rows given a result`,
      );
    }
    return {
      report: report(runs, derailed, context),
      results: { runs, baselineOnWholeFile: derailed },
    };
  },
};

async function importOnce(
  variant: ImportVariant,
  file: GeneratedFile,
  context: PhaseContext,
): Promise<ImportMeasure> {
  const child = await startChild(new URL('./import-process.ts', import.meta.url), [], {
    execArgv: ['--expose-gc'],
  });
  try {
    const request: ImportRequest = {
      variant,
      path: file.path,
      errorsPath: join(context.dir, `errors-${variant}.csv`),
      now: context.now,
      expectedRows: Math.round(file.bytes / 50),
    };
    return await child.ask<ImportMeasure>('run', { ...request });
  } finally {
    await child.close();
  }
}

function describe(run: ImportRun, file: GeneratedFile): string {
  return (
    `run ${run.run} ${run.variant}: ${run.rows} rows in ${fixed(run.seconds)} s ` +
    `(${fixed(file.rows / run.seconds, 0)} rows/s), peak RSS ${fixed(run.memory.maxRssMiB)} MiB`
  );
}

function report(
  runs: readonly ImportRun[],
  derailed: ImportMeasure | undefined,
  context: PhaseContext,
): string {
  const of = (variant: ImportVariant, pick: (run: ImportRun) => number) =>
    median(runs.filter((run) => run.variant === variant).map(pick));
  const rows: Array<[string, (run: ImportRun) => number, number]> = [
    ['rows per second (file rows)', (run) => context.file.rows / run.seconds, 0],
    ['seconds', (run) => run.seconds, 1],
    ['peak RSS of the process, MiB', (run) => run.memory.maxRssMiB, 1],
    ['RSS before reading, MiB', (run) => run.memory.rssIdleMiB, 1],
    ['RSS peak − before, MiB', (run) => run.memory.rssPeakMiB - run.memory.rssIdleMiB, 1],
    ['heapUsed peak − before, MiB', (run) => run.memory.heapPeakMiB - run.memory.heapIdleMiB, 1],
    [
      'live heap (after a full GC every 250k rows) − before, MiB',
      (run) => run.memory.heapLiveMiB - run.memory.heapIdleMiB,
      1,
    ],
    ['rows given a result', (run) => run.rows, 0],
    ['rows accepted', (run) => run.accepted, 0],
  ];
  const table = markdownTable(
    ['median', 'replyflow', 'baseline', 'replyflow ÷ baseline'],
    rows.map(([label, pick, decimals]) => [
      label,
      fixed(of('replyflow', pick), decimals),
      fixed(of('baseline', pick), decimals),
      fixed(of('replyflow', pick) / of('baseline', pick), 2),
    ]),
  );
  const last = runs.filter((run) => run.variant === 'replyflow').at(-1);
  const peakMB = of('replyflow', (run) => run.memory.maxRssMiB) * 1.048576;
  return [
    `medians of ${context.runs} runs; ${context.file.rows.toLocaleString('en-US')} rows, ` +
      `${fixed(context.file.bytes / 2 ** 20)} MiB; bad rows written: ${JSON.stringify(context.file.bad)}`,
    table,
    `replyflow's exclusions: ${JSON.stringify(last?.byReason ?? {})}`,
    derailed
      ? `the baseline on the same file, quotes left open included: ${derailed.rows.toLocaleString('en-US')} ` +
        `rows given a result of ${context.file.rows.toLocaleString('en-US')} (csv-parse's skip_records_with_error ` +
        'takes the lines after an open quote into its value)'
      : 'no baseline (--no-baseline)',
    `peak RSS of reading the file in this process (node's default heap): ${fixed(peakMB)} MB. ` +
      `The goal (≤ ${goalMB} MB for 1,000,000 rows) is judged on the real command, whose import ` +
      'runs with a sized heap: the cli phase.',
  ].join('\n\n');
}
