/** What a benchmark child reports of its own memory: at rest before the work, and at the peak. */
export interface MemoryReport {
  /** After a full GC, before the work started, MiB. */
  rssIdleMiB: number;
  heapIdleMiB: number;
  /** Highest sample during the work (every 10 ms), MiB. */
  rssPeakMiB: number;
  heapPeakMiB: number;
  /** Highest heapUsed right after a full GC (`live()`): what the process really holds, MiB. */
  heapLiveMiB: number;
  /** The kernel's peak RSS of the process's whole life (`resourceUsage().maxRSS`), MiB. */
  maxRssMiB: number;
}

const mib = (bytes: number) => bytes / 2 ** 20;

/**
 * Samples `process.memoryUsage()` every 10 ms from now until `stop()`. Call with `--expose-gc`
 * so the idle figures follow a full collection.
 */
export function startMemoryPeak(): { sample(): void; live(): void; stop(): MemoryReport } {
  const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});
  gc();
  const idle = process.memoryUsage();
  let rssPeak = idle.rss;
  let heapPeak = idle.heapUsed;
  let heapLive = idle.heapUsed;
  const sample = () => {
    const now = process.memoryUsage();
    rssPeak = Math.max(rssPeak, now.rss);
    heapPeak = Math.max(heapPeak, now.heapUsed);
  };
  const timer = setInterval(sample, 10);
  return {
    sample,
    live() {
      sample();
      gc();
      heapLive = Math.max(heapLive, process.memoryUsage().heapUsed);
    },
    stop() {
      clearInterval(timer);
      sample();
      return {
        rssIdleMiB: mib(idle.rss),
        heapIdleMiB: mib(idle.heapUsed),
        rssPeakMiB: mib(rssPeak),
        heapPeakMiB: mib(heapPeak),
        heapLiveMiB: mib(heapLive),
        maxRssMiB: process.resourceUsage().maxRSS / 1024,
      };
    },
  };
}
