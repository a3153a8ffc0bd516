import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../../support/wait-for.ts';
import { mobile, startTestEmulator, type TestEmulator } from './harness.ts';

describe('GET /_emulator/pending-work', () => {
  let emulator: TestEmulator;
  afterEach(() => emulator?.close());

  it('counts pending work until the lifecycle of every message is over', async () => {
    // 200 ms to sent (scaled), so the count is read while the message is still pending.
    emulator = await startTestEmulator({ lifecycle: { sentAfterMs: 20_000, reportAfterMs: 100 } });
    expect((await emulator.control('GET', '/pending-work')).body).toEqual({ count: 0 });
    const sms = await emulator.send({ to: mobile(4), body: 'Hi' });
    expect((await emulator.control('GET', '/pending-work')).body.count).toBeGreaterThan(0);
    await emulator.waitForStatus(sms.id, 'delivered');
    await waitFor(async () => (await emulator.control('GET', '/pending-work')).body.count === 0, {
      message: 'no pending work',
    });
  });
});
