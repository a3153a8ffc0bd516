import type { Logger } from '../observability/logger.ts';

/**
 * One stop's time budget (REPLYFLOW_STOP_TIMEOUT), shared by its phases: each phase gets what
 * is left, a phase that fails or overruns is logged and given up, and none ever rejects, so a
 * hung Redis cannot turn a stop into a crash.
 */
export function stopWithin(
  timeoutMs: number,
  logger: Logger,
): (phase: string, run: () => Promise<unknown>) => Promise<void> {
  const deadline = Date.now() + timeoutMs;
  return async (phase, run) => {
    const leftMs = deadline - Date.now();
    if (leftMs <= 0) {
      logger.warn({ phase }, 'stop timeout reached: skipped; what remains is left to its lease');
      return;
    }
    let timer: NodeJS.Timeout | undefined;
    const overran = new Promise<'overran'>((resolve) => {
      timer = setTimeout(() => resolve('overran'), leftMs);
    });
    try {
      const outcome = await Promise.race([run().then(() => 'done' as const), overran]);
      if (outcome === 'overran') {
        logger.warn(
          { phase, stopTimeoutMs: timeoutMs },
          'stop timeout reached: giving up on this phase; what remains is left to its lease',
        );
      }
    } catch (error) {
      logger.warn({ err: error, phase }, 'a stop phase failed; going on');
    } finally {
      clearTimeout(timer);
    }
  };
}
