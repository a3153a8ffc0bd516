import { createTestHarness, type TestHarness } from 'replyflow/testing';
import { afterEach, describe, expect, it } from 'vitest';
import appointment from '../../fixtures/kit-bots/appointment.ts';
import join from '../../fixtures/kit-bots/join.ts';

const bodies = async (harness: TestHarness, phone: string) =>
  (await harness.phone(phone).messages()).map((m) => m.body);

describe('createTestHarness', () => {
  let harness: TestHarness;
  afterEach(() => harness?.close());

  it('runs a started conversation through the real engine and the emulated service', async () => {
    harness = await createTestHarness({
      bots: [appointment, join],
      now: '2026-12-01T09:00:00+01:00',
    });
    const ana = harness.phone('+33 6 12 34 56 78');
    expect(ana.number).toBe('33612345678');
    await harness.start(appointment, ana, { name: 'Ana' });
    const first = await ana.lastMessage();
    expect(first).toMatchObject({
      body: 'Bonjour Ana, confirmez-vous demain 10h ? OUI ou NON',
      status: 'delivered',
      statusReason: 'DELIVRD',
    });
    expect(first?.at.toISOString()).toBe('2026-12-01T08:00:00.000Z');
    expect(await ana.state()).toBe('booking.asking');
    expect(await ana.context()).toEqual({ name: 'Ana' });
    expect(await ana.result()).toMatchObject({
      bot: 'kit-appointment',
      botVersion: appointment.version,
      fields: {},
    });
    expect(await ana.result()).not.toHaveProperty('endCode');

    await ana.send('peut-être');
    expect((await ana.lastMessage())?.body).toBe('Je n’ai pas compris : OUI ou NON ?');
    await ana.send('oui');
    expect(await bodies(harness, '0612345678')).toEqual([
      'Bonjour Ana, confirmez-vous demain 10h ? OUI ou NON',
      'Je n’ai pas compris : OUI ou NON ?',
      'Merci Ana, à demain.',
    ]);
    expect(await ana.state()).toBe('confirmed');
  });

  it('ends with the end code and its time in the result', async () => {
    harness = await createTestHarness({ bots: [appointment], now: '2026-12-01T09:00:00Z' });
    const bob = harness.phone('33699999999');
    await harness.start('kit-appointment', bob, { name: 'Bob' });
    await harness.advance('1h');
    await bob.send('non');
    expect(await bob.state()).toBe('ended');
    const result = await bob.result();
    expect(result).toMatchObject({ endCode: 'cancelled', phone: '33699999999', fields: {} });
    expect(result?.startedAt).toBe(Date.parse('2026-12-01T09:00:00.000Z'));
    expect(result?.endedAt).toBe(Date.parse('2026-12-01T10:00:00.000Z'));
  });

  it('fires timers in order, each at its own time, when the clock moves', async () => {
    harness = await createTestHarness({ bots: [appointment], now: '2026-12-01T09:00:00Z' });
    const eve = harness.phone('33611111111');
    await harness.start(appointment, eve, { name: 'Eve' });
    await harness.advance('23h');
    expect(await eve.messages()).toHaveLength(1);
    await harness.advance('1h');
    expect((await eve.lastMessage())?.body).toBe('Rappel : répondez OUI ou NON.');
    expect((await eve.lastMessage())?.at.toISOString()).toBe('2026-12-02T09:00:00.000Z');
    expect(await eve.state()).toBe('booking.reminded');
    // The reminder's activity moved the expiry: 3 days after it, not after the start.
    await harness.advance('2d');
    expect(await eve.state()).toBe('booking.reminded');
    await harness.advance('1d');
    expect((await eve.lastMessage())?.body).toBe('Sans réponse, nous annulons.');
    expect(await eve.result()).toMatchObject({ endCode: 'expired' });
  });

  it('fails the next delivery to a phone with the reason given, and the bot hears it', async () => {
    harness = await createTestHarness({ bots: [appointment] });
    const zoe = harness.phone('33622222222');
    await harness.failNextDelivery(zoe, 'EXPIRED');
    await harness.start(appointment, zoe, { name: 'Zoé' });
    expect(await zoe.lastMessage()).toMatchObject({ status: 'errored', statusReason: 'EXPIRED' });
    expect(await zoe.result()).toMatchObject({ endCode: 'delivery_failed' });
  });

  it('lets a fresh number text a keyword to the short code', async () => {
    harness = await createTestHarness({ bots: [appointment, join] });
    const sam = harness.phone('06 33 33 33 33');
    await sam.send('JOIN');
    // The harness's opening SMS is not one of the bot's messages.
    expect(await bodies(harness, sam.number)).toEqual(['Welcome! Your first name?']);
    await sam.send('Sam');
    expect((await sam.lastMessage())?.body).toBe('Thanks Sam, you are in.');
    expect(await sam.state()).toBe('ended');
    expect(await sam.result()).toMatchObject({ bot: 'kit-join', endCode: 'final' });
  });

  it('loads bots from a folder and refuses an unknown bot or a bad clock move clearly', async () => {
    harness = await createTestHarness({ bots: 'test/fixtures/kit-bots' });
    expect([...harness.registry.bots.keys()].sort()).toEqual(['kit-appointment', 'kit-join']);
    await expect(harness.start('nope', '33644444444')).rejects.toThrow(
      "no bot 'nope' in this harness; it serves: kit-appointment, kit-join",
    );
    await expect(harness.advance('soon')).rejects.toThrow(/cannot advance the clock by 'soon'/);
    await expect(harness.phone('33644444444').state()).resolves.toBeUndefined();
  });
});
