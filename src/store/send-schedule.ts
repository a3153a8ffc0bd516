/**
 * Turns a slot reservation into a waiting `acquire`: reserve, wait for the slot, and if the wait
 * was long enough for a 429 to come in meanwhile, check for a pause and start again after it.
 * Shared by both drivers' send limiters.
 */
export interface SlotSchedule {
  reserve(): Promise<number>;
  pausedFor(): Promise<number>;
  pause(ms: number): Promise<void>;
}

export function limiterFromSchedule(
  schedule: SlotSchedule,
  sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
) {
  return {
    async acquire(): Promise<void> {
      for (;;) {
        const wait = await schedule.reserve();
        if (wait <= 0) return;
        await sleep(wait);
        const paused = await schedule.pausedFor();
        if (paused <= 0) return;
        await sleep(paused);
      }
    },
    pause: (ms: number) => schedule.pause(ms),
  };
}
