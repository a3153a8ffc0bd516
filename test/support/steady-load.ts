import { Pool } from 'undici';

/** One notification the load posted, and how the webhook answered it. */
export interface Posted {
  index: number;
  /** When it was sent (ms since epoch). */
  sentAt: number;
  /** The HTTP status, or undefined when no answer came (connection refused or cut). */
  status: number | undefined;
  /** When the answer came (ms since epoch). */
  answeredAt?: number;
}

export interface SteadyLoad {
  /** Everything posted so far. */
  readonly posted: readonly Posted[];
  /** Why requests got no answer (the first few), for a failing test to show. */
  readonly errors: readonly string[];
  /** Stops sending, waits for the answers in flight, and returns everything posted. */
  stop(): Promise<Posted[]>;
}

/**
 * Posts `body(i)` to `url` at a steady `perSecond`, whatever the answers: as the service sends
 * notifications while a process restarts. A notification refused or unanswered is not sent
 * again (what the test counts is what was acknowledged).
 */
export function startSteadyLoad(
  url: string,
  perSecond: number,
  body: (index: number) => string,
): SteadyLoad {
  const target = new URL(url);
  const pool = new Pool(target.origin, { connections: 64 });
  const posted: Posted[] = [];
  const errors: string[] = [];
  const inflight = new Set<Promise<void>>();
  const startedAt = Date.now();
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const post = (index: number) => {
    const entry: Posted = { index, sentAt: Date.now(), status: undefined };
    posted.push(entry);
    const request = pool
      .request({
        method: 'POST',
        path: target.pathname,
        headers: { 'content-type': 'application/json' },
        body: body(index),
        headersTimeout: 10_000,
      })
      .then(async (res) => {
        await res.body.arrayBuffer();
        entry.status = res.statusCode;
        entry.answeredAt = Date.now();
      })
      .catch((error: unknown) => {
        if (errors.length < 10) errors.push(String(error));
      });
    inflight.add(request);
    void request.finally(() => inflight.delete(request));
  };
  // Catches up after a slow tick, so the rate holds on average.
  const tick = () => {
    if (stopped) return;
    const due = Math.floor(((Date.now() - startedAt) * perSecond) / 1_000);
    while (posted.length < due) post(posted.length);
    timer = setTimeout(tick, 5);
  };
  tick();
  return {
    posted,
    errors,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await Promise.all([...inflight]);
      await pool.close();
      return posted;
    },
  };
}
