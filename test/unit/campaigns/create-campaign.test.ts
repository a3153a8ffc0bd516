import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { LocationConfig } from '../../../src/app/config.ts';
import { createBotRegistry } from '../../../src/bot/bot-registry.ts';
import { CampaignError } from '../../../src/campaigns/campaign-error.ts';
import {
  createCampaign,
  createCampaignRequestSchema,
} from '../../../src/campaigns/create-campaign.ts';
import { ValidationError } from '../../../src/errors.ts';
import { createMemoryStore } from '../../../src/store/memory/create-memory-store.ts';
import echo from '../../fixtures/bots/echo-bot.ts';
import reminder from '../../fixtures/bots/reminder-bot.ts';

const now = Date.parse('2027-03-01T08:00:00Z');
const registry = createBotRegistry([
  { bot: echo, file: 'echo-bot.ts' },
  { bot: reminder, file: 'reminder-bot.ts' },
]);
const locations = [{ name: 'paris', rateLimitPerSecond: 50 } as LocationConfig];
const file = (text: string) => Readable.from([text]);
const people = 'phone,name\n+33612345601,Ann\n+33612345602,Bob\n';

function setup() {
  const store = createMemoryStore({});
  return { store, deps: { store, registry, locations, now: () => now } };
}

describe('createCampaign refuses before it stores anything', () => {
  it('a bad window: the field is named and no campaign is left behind', async () => {
    const { store, deps } = setup();
    const refused = createCampaign(
      deps,
      { name: 'spring', bot: 'echo', window: '25:00-26:00' },
      file(people),
    );
    await expect(refused).rejects.toBeInstanceOf(ValidationError);
    await expect(refused).rejects.toMatchObject({ field: 'window' });
    expect(await store.getCampaign({ location: 'paris', name: 'spring' })).toBeNull();
    expect(await store.listCampaigns('paris')).toEqual([]);
  });

  it('a file without its phone column: no campaign is left behind', async () => {
    const { store, deps } = setup();
    await expect(
      createCampaign(deps, { name: 'spring', bot: 'echo' }, file('mobile,name\n+33612345601,A\n')),
    ).rejects.toThrow(/phone/);
    expect(await store.listCampaigns('paris')).toEqual([]);
  });

  it('an import again with a bad window leaves the campaign and its recipients as they were', async () => {
    const { store, deps } = setup();
    const first = await createCampaign(deps, { name: 'spring', bot: 'echo' }, file(people));
    expect(first.imported).toMatchObject({ added: 2 });
    await expect(
      createCampaign(deps, { name: 'spring', bot: 'echo', window: 'soon' }, file('phone\n')),
    ).rejects.toMatchObject({ field: 'window' });
    const meta = await store.getCampaign({ location: 'paris', name: 'spring' });
    expect(meta).toMatchObject({ generation: 1 });
    expect(meta).not.toHaveProperty('window');
    expect(await store.campaignCounts(meta!)).toEqual({ scheduled: 2 });
  });

  it('a bad rate, in a dry run as in a real create: the field is named before any row is read', async () => {
    const { store, deps } = setup();
    for (const dryRun of [true, false]) {
      let read = false;
      const source = (async function* () {
        read = true;
        yield people;
      })();
      const refused = createCampaign(
        deps,
        { name: 'spring', bot: 'echo', rate: 'fast', dryRun },
        source,
      );
      await expect(refused).rejects.toBeInstanceOf(ValidationError);
      await expect(refused).rejects.toMatchObject({ field: 'rate' });
      await expect(refused).rejects.toThrow(/rate 'fast' must be a number of starts per second/);
      expect(read).toBe(false);
    }
    expect(await store.listCampaigns('paris')).toEqual([]);
  });

  it('a request without its name or bot says which is missing, in words', () => {
    const issues = (input: unknown) =>
      createCampaignRequestSchema
        .safeParse(input)
        .error?.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    expect(issues({ bot: 'echo' })).toEqual([
      "name: is required: the campaign's name, such as spring-survey",
    ]);
    expect(issues({ name: 'spring' })).toEqual([
      'bot: is required: the id of the bot each recipient talks to',
    ]);
    expect(issues({ name: 'spring', bot: '' })).toEqual([
      'bot: is required: the id of the bot each recipient talks to',
    ]);
  });

  it('a dry run under a name another bot runs: the 409 the import would answer', async () => {
    const { deps } = setup();
    await createCampaign(deps, { name: 'spring', bot: 'echo' }, file(people));
    const refused = createCampaign(
      deps,
      { name: 'spring', bot: 'reminder', dryRun: true },
      file(people),
    );
    await expect(refused).rejects.toBeInstanceOf(CampaignError);
    await expect(refused).rejects.toMatchObject({ status: 409 });
  });
});
