import type { Logger } from '../observability/logger.ts';

/**
 * Every timer and in-flight request the emulator starts, so that `close()` and reset can stop
 * them all: a test that closes the emulator must not leave a status change or a webhook retry
 * firing into the next test. Delays are given unscaled and multiplied by `timeScale` here, the
 * one place that applies it.
 */
export class PendingWork {
  readonly #timers = new Set<NodeJS.Timeout>();
  readonly #requests = new Set<AbortController>();
  #stopped = false;

  constructor(
    private readonly timeScale: number,
    private readonly logger: Logger,
  ) {}

  /** The real delay, in ms, of an unscaled one. */
  scaled(ms: number): number {
    return ms * this.timeScale;
  }

  /** Runs `task` after `ms × timeScale`; a task that throws is logged, never crashes the process. */
  after(ms: number, task: () => unknown): void {
    if (this.#stopped) return;
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      Promise.resolve()
        .then(task)
        .catch((error: unknown) => this.logger.error({ err: error }, 'emulator task failed'));
    }, this.scaled(ms));
    this.#timers.add(timer);
  }

  /** An abort controller that `cancelAll` aborts; call `release` when the request is over. */
  request(): { signal: AbortSignal; abort: (reason: unknown) => void; release: () => void } {
    const controller = new AbortController();
    if (this.#stopped) controller.abort(cancelled);
    else this.#requests.add(controller);
    return {
      signal: controller.signal,
      abort: (reason) => controller.abort(reason),
      release: () => this.#requests.delete(controller),
    };
  }

  get size(): number {
    return this.#timers.size + this.#requests.size;
  }

  /** Stops everything pending. Work started afterwards runs normally (reset) unless `stop`ped. */
  cancelAll(): void {
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
    for (const controller of this.#requests) controller.abort(cancelled);
    this.#requests.clear();
  }

  /** Cancels everything and refuses new work: the emulator is closing. */
  stop(): void {
    this.#stopped = true;
    this.cancelAll();
  }
}

/** The abort reason of work cancelled by reset or close; such work is not logged as failed. */
export const cancelled = Symbol('cancelled by emulator reset or close');
