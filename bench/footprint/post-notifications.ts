import { Pool } from 'undici';

export interface PostOptions {
  /** The webhook URL. */
  url: string;
  /** Notifications to post, numbered 0 … count − 1. */
  count: number;
  /** The body of notification `i` (a fresh notification id each). */
  body: (i: number) => string;
  /** Requests in flight at once (and connections opened). */
  concurrency: number;
  /**
   * Resolves when the next notification may go: the caller's back-pressure (e.g. until the
   * SUT has caught up with what it acknowledged). Called before each post.
   */
  gate?: () => Promise<void>;
  /** Called after each acknowledged notification with the count so far. */
  onAcked?: (acked: number) => void;
  /** Attempts per notification before it counts as failed. Default 5. */
  attempts?: number;
}

export interface PostResult {
  /** Notifications answered 2xx. */
  acked: number;
  /** Notifications that got no 2xx within their attempts. */
  failed: number;
  /** Attempts answered otherwise than 2xx, or failed on the wire, and then retried. */
  retried: number;
}

const headers = { 'content-type': 'application/json' };

/**
 * Posts `count` notifications to the webhook with at most `concurrency` in flight (an undici
 * Pool), each retried like the service retries it (same body, so the same notification id)
 * when the answer is not 2xx: a 503 from a busy webhook must not leave a conversation out of
 * the count the bench divides by.
 */
export async function postNotifications(options: PostOptions): Promise<PostResult> {
  const target = new URL(options.url);
  const pool = new Pool(target.origin, {
    connections: options.concurrency,
    pipelining: 1,
    keepAliveTimeout: 60_000,
  });
  const attempts = options.attempts ?? 5;
  const result: PostResult = { acked: 0, failed: 0, retried: 0 };
  let next = 0;
  const lane = async () => {
    while (next < options.count) {
      const i = next++;
      await options.gate?.();
      const body = options.body(i);
      for (let attempt = 1; ; attempt++) {
        const ok = await pool
          .request({ path: target.pathname, method: 'POST', headers, body })
          .then(async (response) => {
            await response.body.dump();
            return response.statusCode >= 200 && response.statusCode < 300;
          })
          .catch(() => false);
        if (ok) {
          result.acked++;
          options.onAcked?.(result.acked);
          break;
        }
        if (attempt >= attempts) {
          result.failed++;
          break;
        }
        result.retried++;
        await new Promise((resolve) => setTimeout(resolve, 50 * 2 ** attempt));
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: options.concurrency }, lane));
  } finally {
    await pool.close();
  }
  return result;
}
