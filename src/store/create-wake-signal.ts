/**
 * Lets idle loops sleep until work may be ready, instead of polling in a tight loop.
 * `notify` wakes one sleeper (or the next one to sleep), `notifyAll` wakes them all.
 */
export function createWakeSignal() {
  const sleepers: Array<() => void> = [];
  let pending = 0;
  return {
    /** Resolves true when notified (now or earlier, unconsumed), false when `timeoutMs` passed first. */
    wait(timeoutMs: number): Promise<boolean> {
      if (pending > 0) {
        pending--;
        return Promise.resolve(true);
      }
      return new Promise<boolean>((resolve) => {
        const done = (notified: boolean) => {
          clearTimeout(timer);
          const at = sleepers.indexOf(wake);
          if (at >= 0) sleepers.splice(at, 1);
          resolve(notified);
        };
        const wake = () => done(true);
        const timer = setTimeout(done, timeoutMs, false);
        sleepers.push(wake);
      });
    },
    notify(): void {
      const sleeper = sleepers.shift();
      if (sleeper) sleeper();
      else pending = Math.min(pending + 1, 64);
    },
    notifyAll(): void {
      for (const sleeper of sleepers.splice(0)) sleeper();
    },
  };
}
