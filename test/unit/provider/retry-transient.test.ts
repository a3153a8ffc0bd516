import { describe, expect, it } from 'vitest';
import {
  ProviderRateLimitedError,
  ProviderRejectedError,
  ProviderUnavailableError,
} from '../../../src/provider/provider-errors.ts';
import { retryDelay, retryTransient } from '../../../src/provider/retry-transient.ts';

const call = { location: 'paris', method: 'GET', path: '/groups' };
const policy = { attempts: 4, baseDelayMs: 100, maxDelayMs: 1000 };
const unavailable = () =>
  new ProviderUnavailableError({
    ...call,
    message: '503',
    status: 503,
    mayHaveReachedService: true,
  });
const rateLimited = (retryAfterMs: number | undefined) =>
  new ProviderRateLimitedError({ ...call, message: '429', status: 429, retryAfterMs });

/** Records each wait instead of sleeping, so the tests never wait for a timer. */
function recordedTiming(random = 0.5) {
  const waits: number[] = [];
  return {
    waits,
    timing: { sleep: async (ms: number) => void waits.push(ms), random: () => random },
  };
}

/** A call that fails with the given errors in turn, then answers 'ok'. */
function failing(...errors: Error[]) {
  let calls = 0;
  const run = async () => {
    const error = errors[calls++];
    if (error) throw error;
    return 'ok';
  };
  return { run, calls: () => calls };
}

describe('retryTransient', () => {
  it('retries 5xx and network failures with exponential backoff until the call succeeds', async () => {
    const { waits, timing } = recordedTiming(0.5);
    const flaky = failing(unavailable(), unavailable(), unavailable());
    await expect(retryTransient(flaky.run, policy, timing)).resolves.toBe('ok');
    expect(flaky.calls()).toBe(4);
    // equal jitter with random 0.5: three quarters of 100, 200, 400
    expect(waits).toEqual([75, 150, 300]);
  });

  it('gives up after the configured attempts and throws the last error', async () => {
    const { waits, timing } = recordedTiming();
    const down = failing(unavailable(), unavailable(), unavailable(), unavailable(), unavailable());
    await expect(retryTransient(down.run, policy, timing)).rejects.toBeInstanceOf(
      ProviderUnavailableError,
    );
    expect(down.calls()).toBe(4);
    expect(waits).toHaveLength(3);
  });

  it('waits exactly Retry-After after a 429', async () => {
    const { waits, timing } = recordedTiming();
    const limited = failing(rateLimited(700));
    await expect(retryTransient(limited.run, policy, timing)).resolves.toBe('ok');
    expect(waits).toEqual([700]);
  });

  it('does not wait for a Retry-After longer than maxDelayMs: the caller hears of it at once', async () => {
    const { waits, timing } = recordedTiming();
    const limited = failing(rateLimited(60_000));
    const error = await retryTransient(limited.run, policy, timing).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderRateLimitedError);
    expect((error as ProviderRateLimitedError).retryAfterMs).toBe(60_000);
    expect(waits).toEqual([]);
  });

  it('never retries a 4xx', async () => {
    const { waits, timing } = recordedTiming();
    const rejected = failing(
      new ProviderRejectedError({ ...call, message: '400', status: 400, body: {} }),
    );
    await expect(retryTransient(rejected.run, policy, timing)).rejects.toBeInstanceOf(
      ProviderRejectedError,
    );
    expect(rejected.calls()).toBe(1);
    expect(waits).toEqual([]);
  });
});

describe('retryDelay', () => {
  it('stays between half and all of the exponential ceiling, capped by maxDelayMs', () => {
    const error = unavailable();
    expect(retryDelay(error, 1, policy, () => 0)).toBe(50);
    expect(retryDelay(error, 1, policy, () => 0.999_999)).toBe(100);
    expect(retryDelay(error, 10, policy, () => 0)).toBe(500);
    expect(retryDelay(error, 10, policy, () => 0.999_999)).toBe(1000);
  });
});
