import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMessagingClients } from '../../../src/provider/create-messaging-clients.ts';
import { type ProviderEmulator, startProviderEmulator } from './provider-emulator.ts';

let world: ProviderEmulator;

beforeAll(async () => {
  world = await startProviderEmulator();
});
afterAll(async () => {
  await world.close();
});

describe('every endpoint against the emulator, happy path', () => {
  it('sms.send sends from the short code and sms.get reads it back', async () => {
    const client = world.client();
    const sent = await client.sms.send({ to: '06 12 34 56 01', body: 'Your table is ready' });
    expect(sent).toMatchObject({
      to: '33612345601',
      from: '',
      body: 'Your table is ready',
      shortenUrls: false,
      isTransactional: false,
      status: 'pending',
      statusReason: '',
    });
    const read = await client.sms.get(sent.id);
    expect(read.id).toBe(sent.id);
    expect(read.to).toBe('33612345601');
    const [stored] = await world.control<{ id: string }[]>('GET', '/messages?to=33612345601');
    expect(stored?.id).toBe(sent.id);
  });

  it('sms.send passes a sender and the two flags through', async () => {
    const sent = await world.client().sms.send({
      to: '+33 6 12 34 56 02',
      body: 'Promo https://example.com/a-very-long-link',
      from: 'Bistro',
      shortenUrls: true,
      isTransactional: true,
    });
    expect(sent).toMatchObject({ from: 'Bistro', shortenUrls: true, isTransactional: true });
  });

  it('groups.create then groups.list', async () => {
    const client = world.client();
    const group = await client.groups.create('Survey 2026');
    expect(group).toMatchObject({ name: 'Survey 2026', source: 'user' });
    expect(await client.groups.list()).toContainEqual(group);
  });

  it('customColumns.list gives the typed columns', async () => {
    const columns = await world.client().customColumns.list();
    expect(columns.map((c) => [c.id, c.type])).toEqual([
      [1, 'DATETIME'],
      [2, 'CHAR'],
      [3, 'DOUBLE'],
    ]);
  });

  it('contacts.add adds a contact with fixed fields and custom columns', async () => {
    const client = world.client();
    const group = await client.groups.create('Loyalty');
    const added = await client.contacts.add(group.id, {
      contactEmailAddress: 'ana@example.com',
      contactFirstName: 'Ana',
      contactBirthday: '1990-04-01T00:00:00Z',
      '1': '2026-11-21T09:30:00+01:00',
      '2': 'gold',
      '3': 12.5,
    });
    expect(added).toMatchObject({
      groupId: group.id,
      contactEmailAddress: 'ana@example.com',
      '3': 12.5,
    });
  });

  it('webhooks.register, list and remove', async () => {
    const client = world.client();
    const hook = await client.webhooks.register('https://bots.example.com/hooks/a', ['sms.status']);
    expect(hook).toMatchObject({ url: 'https://bots.example.com/hooks/a', events: ['sms.status'] });
    expect(await client.webhooks.list()).toContainEqual(hook);
    await client.webhooks.remove(hook.id);
    expect((await client.webhooks.list()).map((h) => h.id)).not.toContain(hook.id);
  });

  it('webhooks.ensure registers once, however often it runs', async () => {
    const client = world.client();
    const url = 'https://bots.example.com/hooks/ensure';
    const first = await client.webhooks.ensure(url, ['sms.status', 'sms.reply']);
    expect(first.created).toHaveLength(1);
    const again = await client.webhooks.ensure(url, ['sms.reply', 'sms.status']);
    expect(again.created).toEqual([]);
    expect(again.webhooks).toEqual(first.webhooks);
    const forUrl = (await client.webhooks.list()).filter((h) => h.url === url);
    expect(forUrl).toHaveLength(1);
  });
});

describe('createMessagingClients', () => {
  it('gives one client per location, each seeing only its own account', async () => {
    const location = (name: string, key: string) => ({
      name,
      providerUrl: world.emulator.baseUrl,
      apiKeyId: `${key}-key`,
      apiKeySecret: `${key}-secret`,
      defaultCountry: 'FR',
      rateLimitPerSecond: 50,
    });
    const clients = createMessagingClients({
      locations: [location('paris', 'paris'), location('lyon', 'lyon')],
    });
    try {
      expect([...clients.keys()]).toEqual(['paris', 'lyon']);
      const lyonGroup = await clients.get('lyon')!.groups.create('Only in Lyon');
      const parisGroups = await clients.get('paris')!.groups.list();
      expect(parisGroups.map((g) => g.id)).not.toContain(lyonGroup.id);
      const sent = await clients.get('lyon')!.sms.send({ to: '0612345603', body: 'Bonjour' });
      const [stored] = await world.control<{ location: string }[]>(
        'GET',
        '/messages?to=33612345603',
      );
      expect(stored?.location).toBe('lyon');
      expect(sent.id).toBeTruthy();
    } finally {
      await Promise.all([...clients.values()].map((c) => c.close()));
    }
  });
});
