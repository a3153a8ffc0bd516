import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { Benchmark } from '../lib/benchmark.ts';
import { machineInfo } from '../lib/machine.ts';
import type { CampaignPhase } from './campaign-phase.ts';
import { cliPhase } from './cli-phase.ts';
import { generateRecipients } from './generate-recipients.ts';
import { importPhase } from './import-phase.ts';
import { storePhase } from './store-phase.ts';
import { uploadPhase } from './upload-phase.ts';

/** The phases, in the order they run. */
const phases: CampaignPhase[] = [importPhase, storePhase, cliPhase, uploadPhase];

const usage = `campaigns [--rows 1000000] [--runs 3] [--phase import] [--no-baseline]
  --rows N        data rows of the generated recipient file (2 % of them bad)
  --runs N        runs of each variant, alternating which goes first
  --phase P       only this phase (repeatable): ${phases.map((phase) => phase.name).join(', ')}
  --no-baseline   replyflow only, without the hand-written loops (a before/after comparison)
  BENCH_IMPORT_NODE_FLAGS="--max-semi-space-size=1 …": node flags for the importing processes`;

const benchmark: Benchmark = {
  name: 'campaigns',
  description:
    'campaign import: a 1M-row recipient CSV read into send times, then into Redis (rows/s, peak RSS, Redis bytes per scheduled recipient) vs hand-written csv-parse loops',
  run,
};
export default benchmark;

async function run(args: readonly string[]): Promise<void> {
  const { values } = parseArgs({
    args: [...args],
    options: {
      rows: { type: 'string', default: '1000000' },
      runs: { type: 'string', default: '3' },
      phase: { type: 'string', multiple: true },
      'no-baseline': { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(usage);
    return;
  }
  const whole = (name: string, value: string) => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < 1)
      throw new Error(`--${name} must be a whole number ≥ 1, got '${value}'\n${usage}`);
    return n;
  };
  const rows = whole('rows', values.rows);
  const runs = whole('runs', values.runs);
  const chosen = values.phase ?? phases.map((phase) => phase.name);
  const unknown = chosen.filter((name) => !phases.some((phase) => phase.name === name));
  if (unknown.length > 0) throw new Error(`no phase ${unknown.join(', ')}\n${usage}`);

  const machine = machineInfo();
  const started = Date.now();
  console.log(
    `campaigns: ${machine.cpus} CPUs (${machine.cpuModel}), ${machine.memoryGiB} GiB, Node ${machine.node}, ` +
      `commit ${machine.commit}, load average ${machine.loadAverage.join(' ')}`,
  );
  const dir = mkdtempSync(join(os.tmpdir(), 'replyflow-bench-campaigns-'));
  const results: Record<string, unknown> = {};
  try {
    const file = await generateRecipients(join(dir, 'recipients.csv'), rows);
    const cleanFile = await generateRecipients(join(dir, 'clean.csv'), rows, { openQuotes: false });
    console.log(
      `generated ${rows} rows (${(file.bytes / 2 ** 20).toFixed(1)} MiB) in ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
    const now = Date.parse('2027-11-15T12:00:00Z');
    for (const phase of phases.filter((each) => chosen.includes(each.name))) {
      console.log(`\n### ${phase.name}: ${phase.description}\n`);
      const baselines = !values['no-baseline'];
      const outcome = await phase.run({ rows, runs, file, cleanFile, dir, now, baselines });
      results[phase.name] = outcome.results;
      console.log(`\n${outcome.report}\n`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  mkdirSync(new URL('../results/', import.meta.url), { recursive: true });
  const path = new URL(
    `../results/campaigns-${new Date(started).toISOString().replace(/[:.]/g, '-')}.json`,
    import.meta.url,
  );
  writeFileSync(
    path,
    `${JSON.stringify({ machine, settings: { rows, runs, phases: chosen, nodeFlags: process.env.BENCH_IMPORT_NODE_FLAGS ?? '', baselines: !values['no-baseline'] }, results }, null, 2)}\n`,
  );
  console.log(`raw results: ${path.pathname} (${((Date.now() - started) / 1000).toFixed(0)} s)`);
}
