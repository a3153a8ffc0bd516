// Preloaded into a process the campaigns bench runs (`node --import ./report-memory.mjs …`):
// notes the RSS before anything else loads (node alone), and at exit writes it with the
// kernel's peak RSS of the process's whole life to the file BENCH_MEMORY_REPORT names. Plain
// JavaScript: it runs before tsx is registered.
import { writeFileSync } from 'node:fs';

const startRss = process.memoryUsage().rss;
const path = process.env.BENCH_MEMORY_REPORT;
if (path) {
  process.on('exit', () => {
    const mib = (bytes) => bytes / 2 ** 20;
    writeFileSync(
      path,
      JSON.stringify({
        startMiB: mib(startRss),
        maxRssMiB: process.resourceUsage().maxRSS / 1024,
      }),
    );
  });
}
