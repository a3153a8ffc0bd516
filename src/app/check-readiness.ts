import type { BotRegistry } from '../bot/bot-registry.ts';
import type { Store } from '../store/store.ts';

/** What `/readyz` answers: ready, or the first reason it is not. */
export type Readiness = { ready: true } | { ready: false; reason: string };

export interface ReadinessDeps {
  store: Store;
  /** The bots this process serves; undefined while they load. */
  registry: BotRegistry | undefined;
  /** True once the process was asked to stop. */
  draining(): boolean;
  /** How long the store has to answer its ping. Default 1 s. */
  pingTimeoutMs?: number;
}

/**
 * Ready to take traffic: not draining, bots loaded, and the store answering a ping within the
 * timeout. A store that hangs (a frozen Redis) is not waited for past it.
 */
export async function checkReadiness(deps: ReadinessDeps): Promise<Readiness> {
  if (deps.draining()) return { ready: false, reason: 'stopping: finishing work in flight' };
  if (!deps.registry || deps.registry.bots.size === 0) {
    return { ready: false, reason: 'no bot is loaded (check REPLYFLOW_BOTS_DIR)' };
  }
  const timeoutMs = deps.pingTimeoutMs ?? 1_000;
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<string>((resolve) => {
    timer = setTimeout(
      () => resolve(`store did not answer a ping within ${timeoutMs} ms`),
      timeoutMs,
    );
  });
  const pinged = deps.store.ping().then(
    () => undefined,
    (error: unknown) =>
      `store unavailable: ${error instanceof Error ? error.message : String(error)}`,
  );
  try {
    const problem = await Promise.race([pinged, timedOut]);
    return problem === undefined ? { ready: true } : { ready: false, reason: problem };
  } finally {
    clearTimeout(timer);
  }
}
