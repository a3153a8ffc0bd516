export interface WaitForOptions {
  /** Give up after this many ms. Default 5000. */
  timeout?: number;
  /** Poll every this many ms. Default 10. */
  interval?: number;
  /** Said in the error when time runs out, so a failing test tells what it waited for. */
  message?: string;
}

/**
 * Polls `probe` until it returns a truthy value (or a promise of one) and returns that value.
 * Rejects with the last value seen, or the last error thrown, when `timeout` passes. Tests use it
 * instead of fixed sleeps: they wait exactly as long as the condition takes.
 *
 * @example
 * const sms = await waitFor(async () => {
 *   const found = await getSms(id);
 *   return found.status === 'delivered' && found;
 * }, { message: 'sms delivered' });
 */
export async function waitFor<T>(
  probe: () => T | Promise<T>,
  options: WaitForOptions = {},
): Promise<Exclude<T, false | 0 | '' | null | undefined>> {
  const timeout = options.timeout ?? 5000;
  const interval = options.interval ?? 10;
  const deadline = Date.now() + timeout;
  let last: unknown;
  let lastError: unknown;
  for (;;) {
    try {
      last = await probe();
      lastError = undefined;
      if (last) return last as Exclude<T, false | 0 | '' | null | undefined>;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() >= deadline) {
      const what = options.message ?? 'condition';
      throw new Error(
        `waitFor: ${what} not met within ${timeout} ms; last ${lastError ? 'error' : 'value'}: ${describe(lastError ?? last)}`,
        { cause: lastError },
      );
    }
    await new Promise((resolve) => setTimeout(resolve, interval));
  }
}

function describe(value: unknown): string {
  if (value instanceof Error) return value.message;
  try {
    return JSON.stringify(value)?.slice(0, 500) ?? String(value);
  } catch {
    return String(value);
  }
}
