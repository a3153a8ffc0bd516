/** Where progress goes: a terminal redraws one line, anything else gets a line now and then. */
export interface ProgressOutput {
  write(text: string): unknown;
  isTTY?: boolean;
  /** The terminal's width: a redrawn line longer than it would wrap and never be erased. */
  columns?: number;
}

export interface ProgressReporterOptions {
  output: ProgressOutput;
  /** The clock, ms (default `performance.now`). */
  now?: () => number;
  /** The file's size in bytes, when known: progress then shows a percentage. */
  totalBytes?: number;
  /** The verb of the line (default `read`). */
  label?: string;
  /** On a terminal, the least time between two redraws (default 250 ms). */
  redrawMs?: number;
  /** Elsewhere (a log, a pipe), the time between two lines (default 5 s). */
  lineEveryMs?: number;
}

export interface ProgressReporter {
  /** Rows done so far and, when known, bytes read: cheap to call for every row. */
  update(rows: number, bytes?: number): void;
  /** Ends the progress with one last line, and `summary` after it when given. */
  finish(summary?: string): void;
}

const clearLine = '\x1b[K';
const count = (value: number) => Math.round(value).toLocaleString('en-US');

/**
 * Shows a long import's progress: rows read, rows a second and, when the size is known, the
 * share of bytes read. On a terminal it redraws a single line at most a few times a second;
 * elsewhere it writes a plain line every few seconds, so a log is not flooded. `finish` writes
 * the final line.
 *
 * @example
 * const progress = createProgressReporter({ output: process.stderr, totalBytes: size });
 * for await (const row of readRecipients(stream, options)) progress.update(++rows, stream.bytesRead);
 * progress.finish('982,113 recipients, 17,887 excluded');
 */
export function createProgressReporter(options: ProgressReporterOptions): ProgressReporter {
  const { output } = options;
  const now = options.now ?? (() => performance.now());
  const tty = output.isTTY === true;
  const every = tty ? (options.redrawMs ?? 250) : (options.lineEveryMs ?? 5_000);
  const label = options.label ?? 'read';
  const started = now();
  let lastShown = started;
  let rows = 0;
  let bytes: number | undefined;
  let finished = false;

  const rate = (at: number) => {
    const seconds = (at - started) / 1000;
    return seconds > 0 ? `${count(rows / seconds)} rows/s` : undefined;
  };
  const share = () => {
    const total = options.totalBytes;
    if (bytes === undefined || total === undefined || total <= 0) return undefined;
    return `${Math.min(100, Math.floor((bytes / total) * 100))}%`;
  };
  const fitWidth = (line: string) => {
    const width = output.columns;
    return width !== undefined && width > 1 && line.length >= width
      ? line.slice(0, width - 1)
      : line;
  };

  return {
    update(rowsDone, bytesRead) {
      if (finished) return;
      rows = rowsDone;
      if (bytesRead !== undefined) bytes = bytesRead;
      const at = now();
      if (at - lastShown < every) return;
      lastShown = at;
      const details = [rate(at), share()].filter((part) => part !== undefined);
      if (tty) {
        output.write(
          `\r${fitWidth(`${label} ${count(rows)} rows · ${details.join(' · ')}`)}${clearLine}`,
        );
      } else {
        output.write(`${label} ${count(rows)} rows (${details.join(', ')})\n`);
      }
    },
    finish(summary) {
      if (finished) return;
      finished = true;
      const at = now();
      const speed = rate(at);
      const line =
        `${label} ${count(rows)} rows in ${((at - started) / 1000).toFixed(1)} s` +
        (speed ? ` (${speed})` : '') +
        (summary ? `: ${summary}` : '');
      output.write(`${tty ? `\r${clearLine}` : ''}${line}\n`);
    },
  };
}
