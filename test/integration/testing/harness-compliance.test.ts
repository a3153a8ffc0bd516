import { createTestHarness, type TestHarness } from 'replyflow/testing';
import { afterEach, describe, expect, it } from 'vitest';
import appointment from '../../fixtures/kit-bots/appointment.ts';

describe('the harness runs the compliance step before any bot', () => {
  let harness: TestHarness;
  afterEach(() => harness?.close());

  it('ends a conversation on STOP with opted_out and one confirmation', async () => {
    harness = await createTestHarness({ bots: [appointment] });
    const ana = harness.phone('33612345678');
    await harness.start(appointment, ana, { name: 'Ana' });
    await ana.send('STOP');
    const messages = await ana.messages();
    expect(messages).toHaveLength(2);
    expect(messages[1]?.body).not.toBe(messages[0]?.body);
    expect(await ana.state()).toBe('ended');
    expect(await ana.result()).toMatchObject({ endCode: 'opted_out' });
  });
});
