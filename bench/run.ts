// `npm run bench` runs every benchmark in bench/*/ (each folder with an index.ts whose default
// export is a `Benchmark`); `npm run bench -- reply-loop` runs the named ones. Flags after the
// names go to each benchmark: `npm run bench -- reply-loop --runs 5`; `--list` lists them.
import { existsSync, readdirSync } from 'node:fs';
import type { Benchmark } from './lib/benchmark.ts';

const benchDir = new URL('./', import.meta.url);
const args = process.argv.slice(2);
const firstFlag = args.findIndex((arg) => arg.startsWith('-'));
const names = firstFlag === -1 ? args : args.slice(0, firstFlag);
const flags = firstFlag === -1 ? [] : args.slice(firstFlag);

const available = readdirSync(benchDir, { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && existsSync(new URL(`${entry.name}/index.ts`, benchDir)))
  .map((entry) => entry.name)
  .sort();

const unknown = names.filter((name) => !available.includes(name));
if (unknown.length > 0) {
  console.error(`no benchmark named ${unknown.join(', ')}; available: ${available.join(', ')}`);
  process.exit(2);
}

const benchmarks: Benchmark[] = [];
for (const name of names.length > 0 ? names : available) {
  const module = (await import(new URL(`${name}/index.ts`, benchDir).href)) as {
    default: Benchmark;
  };
  benchmarks.push(module.default);
}

if (flags.includes('--list')) {
  for (const benchmark of benchmarks) console.log(`${benchmark.name}: ${benchmark.description}`);
  process.exit(0);
}

let failed = false;
for (const benchmark of benchmarks) {
  console.log(`\n## ${benchmark.name}\n${benchmark.description}\n`);
  try {
    await benchmark.run(flags);
  } catch (error) {
    failed = true;
    console.error(`${benchmark.name} failed:`, error);
  }
}
process.exit(failed ? 1 : 0);
