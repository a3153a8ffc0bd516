import { resolve } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/app/config.ts';
import { type RunningDev, startDev } from '../../../src/app/start-dev.ts';
import type { StoredSms } from '../../../src/emulator/index.ts';
import { waitFor } from '../../support/wait-for.ts';

describe('replyflow dev and the reference opt-in bot (issue 25, item 1)', () => {
  let dev: RunningDev;
  beforeAll(async () => {
    const config = await loadConfig({
      PORT: '0',
      REPLYFLOW_BOTS_DIR: resolve('bots'),
      LOG_LEVEL: 'silent',
    });
    dev = await startDev(config, pino({ level: 'silent' }), { watch: false });
  });
  afterAll(() => dev?.close());

  const bodies = async (phone: string) =>
    ((await (await fetch(`${dev.url}/_emulator/messages?to=${phone}`)).json()) as StoredSms[]).map(
      (sms) => sms.body,
    );
  const post = (path: string, body: unknown) =>
    fetch(`${dev.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  it('has a contacts group, writes the subscriber to it, and says subscribed only after', async () => {
    const groups = (await (
      await fetch(`${dev.url}/v1/groups`, {
        headers: { 'x-api-key-id': 'dev', 'x-api-key-secret': 'dev' },
      })
    ).json()) as Array<{ id: number; name: string }>;
    expect(groups.map((group) => group.name)).toEqual(['Subscribers']);

    const phone = '33612000091';
    expect(
      (await post('/dev/conversations', { bot: 'opt-in', phone, input: { lang: 'en' } })).status,
    ).toBe(202);
    await waitFor(async () => (await bodies(phone)).length === 1, { message: 'the question' });
    await waitFor(async () => (await post(`/dev/phones/${phone}/messages`, { body: 'Ada' })).ok);
    await waitFor(async () => (await bodies(phone)).length === 2, { message: 'the confirmation' });
    expect((await bodies(phone))[1]).toBe(
      'Thank you Ada, you are subscribed. Text STOP to unsubscribe.',
    );
    const contacts = (await (
      await fetch(`${dev.url}/_emulator/locations/default/contacts`)
    ).json()) as Array<Record<string, unknown>>;
    expect(contacts.filter((contact) => contact.contactPhoneNumber === phone)).toEqual([
      expect.objectContaining({
        groupId: groups[0]!.id,
        contactFirstName: 'Ada',
        contactSubscribed: true,
      }),
    ]);
  });
});
