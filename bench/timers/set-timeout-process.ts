// The baseline, alone in its own process: the same timers, each one an in-memory `setTimeout`
// holding its record, the way a naive bot server schedules them. Firing only records how late
// it was (no I/O), so its lateness is a best case. Started by `index.ts`; answers `run`.
import { performance } from 'node:perf_hooks';
import type { TimerRecord } from '../../src/store/records.ts';
import { serveParent } from '../lib/child.ts';
import { latenessOf } from './lateness.ts';
import { startMemoryPeak } from './memory-peak.ts';
import { conversationsOf, firstDue, lastDueOf, type TimerPlan, timersOf } from './timer-plan.ts';

interface RunRequest {
  plan: TimerPlan;
  leadMs: number;
}

async function run({ plan, leadMs }: RunRequest) {
  const memory = startMemoryPeak();
  const startedAt = performance.now();
  // Real time (performance.now) of a virtual due time.
  const realDue = (dueAt: number) => startedAt + leadMs + (dueAt - firstDue);
  const lateness = new Float64Array(plan.timers);
  let fired = 0;
  let doneAt = 0;
  const allFired = new Promise<void>((resolve) => {
    const fire = (timer: TimerRecord) => {
      lateness[fired++] = performance.now() - realDue(timer.dueAt);
      if (fired === plan.timers) {
        doneAt = performance.now();
        resolve();
      }
    };
    for (let c = 0; c < conversationsOf(plan); c++) {
      for (const timer of timersOf(plan, c)) {
        setTimeout(fire, realDue(timer.dueAt) - performance.now(), timer);
      }
    }
  });
  const scheduledMs = performance.now() - startedAt;
  // Every timer is held now: the most this process retains.
  memory.live();
  await allFired;
  return {
    scheduledMs,
    drainMs: doneAt - realDue(lastDueOf(plan)),
    lateness: latenessOf(lateness),
    memory: memory.stop(),
  };
}

serveParent({ run: (message) => run(message as unknown as RunRequest) }, async () => {});
process.send?.({ type: 'ready' });
