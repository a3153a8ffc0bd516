/**
 * Lets idle loops sleep until work may be ready, instead of polling in a tight loop.
 * `notify` wakes one sleeper (or the next one to sleep), `notifyAll` wakes them all.
 */
export function createWakeSignal() {
  const sleepers: Array<() => void> = [];
  let pending = 0;
  return {
    wait(timeoutMs: number): Promise<void> {
      if (pending > 0) {
        pending--;
        return Promise.resolve();
      }
      return new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          const at = sleepers.indexOf(done);
          if (at >= 0) sleepers.splice(at, 1);
          resolve();
        };
        const timer = setTimeout(done, timeoutMs);
        sleepers.push(done);
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
