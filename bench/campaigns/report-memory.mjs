// Preloaded into a process the campaigns bench runs (`node --import ./report-memory.mjs …`):
// notes the RSS before anything else loads (node alone), and at exit appends it with the
// kernel's peak RSS of the process's whole life, as one JSON line, to the file
// BENCH_MEMORY_REPORT names: one line per process, since bin/replyflow.js runs a file import in
// a child node, which inherits this preload. Plain JavaScript: it runs before tsx is registered.
import { appendFileSync, readFileSync } from 'node:fs';

const startRss = process.memoryUsage().rss;
const path = process.env.BENCH_MEMORY_REPORT;
if (path) {
  process.on('exit', () => {
    const mib = (bytes) => bytes / 2 ** 20;
    appendFileSync(
      path,
      `${JSON.stringify({
        pid: process.pid,
        startMiB: mib(startRss),
        maxRssMiB: process.resourceUsage().maxRSS / 1024,
        // What this process alone holds at exit: RSS counts node's binary, which every node
        // process shares (about 34 of a bare node's 40 MiB).
        privateMiB: privateKiB() / 1024,
      })}\n`,
    );
  });
}

function privateKiB() {
  try {
    const rollup = readFileSync('/proc/self/smaps_rollup', 'utf8');
    const kib = (field) =>
      Number(rollup.match(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm'))?.[1] ?? 0);
    return kib('Private_Clean') + kib('Private_Dirty');
  } catch {
    return Number.NaN;
  }
}
