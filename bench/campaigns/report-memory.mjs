// Preloaded into a process the campaigns bench runs (`node --import ./report-memory.mjs …`):
// notes the RSS before anything else loads (node alone), and at exit appends it with the
// kernel's peak RSS of the process's whole life, as one JSON line, to the file
// BENCH_MEMORY_REPORT names: one line per process, since bin/replyflow.js runs a file import in
// a child node, which inherits this preload. Plain JavaScript: it runs before tsx is registered.
import { appendFileSync } from 'node:fs';

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
      })}\n`,
    );
  });
}
