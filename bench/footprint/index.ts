import { mkdirSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { Benchmark } from '../lib/benchmark.ts';
import { machineInfo } from '../lib/machine.ts';
import { formatFootprintReport } from './format-footprint-report.ts';
import { type FootprintSettings, measureFootprint } from './measure-footprint.ts';

const usage = `footprint [--conversations 100000] [--ended 10000] [--baseline 20000] [--concurrency 32]
          [--backlog 1000] [--idle-seconds 10] [--expiry-wait 120] [--sample 2000]
  --conversations N  idle conversations (echo bot: one answer, then waiting)
  --ended N          ended conversations, loaded after the idle ones (once bot: one answer, final state)
  --baseline N       conversations through the naive handler (bytes per conversation barely depend on N)
  --backlog N        most notifications acknowledged ahead of the SMS sent
  --idle-seconds S   how long the idle process's Redis commands are counted
  --expiry-wait S    keys that all expire within S seconds after a load are waited out before measuring
  --sample N         keys per type measured with MEMORY USAGE`;

const benchmark: Benchmark = {
  name: 'footprint',
  description:
    "Redis memory per idle and per ended conversation (used_memory, MEMORY USAGE per key type, keys without a TTL), the idle process's Redis commands/s, and the naive baseline's bytes per conversation",
  run,
};
export default benchmark;

function parseSettings(args: readonly string[]): Omit<FootprintSettings, 'log'> {
  const { values } = parseArgs({
    args: [...args],
    options: {
      conversations: { type: 'string', default: '100000' },
      ended: { type: 'string', default: '10000' },
      baseline: { type: 'string', default: '20000' },
      concurrency: { type: 'string', default: '32' },
      backlog: { type: 'string', default: '1000' },
      'idle-seconds': { type: 'string', default: '10' },
      'expiry-wait': { type: 'string', default: '120' },
      sample: { type: 'string', default: '2000' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(usage);
    process.exit(0);
  }
  const number = (name: string, value: string, min: number) => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min) {
      throw new Error(`--${name} must be an integer ≥ ${min}, got '${value}'\n${usage}`);
    }
    return n;
  };
  return {
    conversations: number('conversations', values.conversations, 1),
    ended: number('ended', values.ended, 0),
    baseline: number('baseline', values.baseline, 1),
    concurrency: number('concurrency', values.concurrency, 1),
    backlog: number('backlog', values.backlog, 1),
    idleSeconds: number('idle-seconds', values['idle-seconds'], 1),
    expiryWaitSeconds: number('expiry-wait', values['expiry-wait'], 0),
    samplePerType: number('sample', values.sample, 1),
  };
}

async function run(args: readonly string[]): Promise<void> {
  const settings = parseSettings(args);
  const machine = machineInfo();
  const started = Date.now();
  const stamp = () => new Date().toISOString().slice(11, 19);
  console.log(
    `footprint: ${machine.cpus} CPUs (${machine.cpuModel}), ${machine.memoryGiB} GiB, Node ${machine.node}, ` +
      `commit ${machine.commit}, load average ${machine.loadAverage.join(' ')}`,
  );
  const report = await measureFootprint({
    ...settings,
    log: (line) => console.log(`${stamp()} ${line}`),
  });
  console.log(`\n${formatFootprintReport(report, machine)}\n`);
  mkdirSync(new URL('../results/', import.meta.url), { recursive: true });
  const file = new URL(
    `../results/footprint-${new Date(started).toISOString().replace(/[:.]/g, '-')}.json`,
    import.meta.url,
  );
  writeFileSync(file, `${JSON.stringify({ machine, report }, null, 2)}\n`);
  console.log(`raw results: ${file.pathname}`);
}
