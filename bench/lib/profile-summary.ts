// Summarises a V8 CPU profile (`node --cpu-prof`, or `npm run bench -- reply-loop --profile`):
// self time by function and by package/folder, heaviest first.
//   npx tsx bench/lib/profile-summary.ts bench/results/profiles/<file>.cpuprofile [top]
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const [file, topArg] = process.argv.slice(2);
if (!file) {
  console.error('usage: tsx bench/lib/profile-summary.ts <file.cpuprofile> [top]');
  process.exit(2);
}
const top = Number(topArg ?? 30);
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const selfMs = new Map<number, number>();
profile.samples.forEach((id, i) => {
  selfMs.set(id, (selfMs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
});
const total = [...selfMs.values()].reduce((sum, ms) => sum + ms, 0);

/** `node_modules/<package>`, `src/<folder>`, `node:<module>`, or the bare function for V8 internals. */
function area(url: string, name: string): string {
  const modules = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (modules) return modules[1]!;
  const source = /\/(src|bench|test)\/([^/]+)/.exec(url);
  if (source) return `${source[1]}/${source[2]}`;
  if (url.startsWith('node:')) return url;
  return url === '' ? `(${name || 'anonymous'})` : url;
}

const byFunction = new Map<string, number>();
const byArea = new Map<string, number>();
for (const [id, ms] of selfMs) {
  const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
  const where = url
    ? `${url.replace(/^.*\/(node_modules|src|bench)\//, '$1/')}:${lineNumber + 1}`
    : '';
  const key = `${functionName || '(anonymous)'} ${where}`;
  byFunction.set(key, (byFunction.get(key) ?? 0) + ms);
  const group = area(url, functionName);
  byArea.set(group, (byArea.get(group) ?? 0) + ms);
}

const print = (title: string, entries: Map<string, number>) => {
  console.log(`\n${title} (total ${total.toFixed(0)} ms)`);
  for (const [key, ms] of [...entries].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(
      `${((ms / total) * 100).toFixed(1).padStart(5)}%  ${ms.toFixed(0).padStart(6)} ms  ${key}`,
    );
  }
};
print('self time by area', byArea);
print('self time by function', byFunction);
