import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/app/config.ts';
import { createCompliancePolicy } from '../../../src/compliance/create-compliance-policy.ts';

const location = {
  name: 'paris',
  providerUrl: 'https://api.example.com/v1',
  apiKeyId: 'paris-key',
  apiKeySecret: 'paris-secret',
  webhookSecret: 'paris-webhook-secret-0123',
  defaultCountry: 'FR',
};

async function configFile(body: unknown): Promise<string> {
  const file = join(await mkdtemp(join(tmpdir(), 'rf-compliance-')), 'replyflow.config.json');
  await writeFile(file, JSON.stringify(body));
  return file;
}

describe("a location's compliance section", () => {
  it('loads from the config file, and makes the policy it describes', async () => {
    const compliance = {
      language: 'fr',
      programName: 'Salon Lila',
      contact: '01 23 45 67 89',
      keywords: {
        add: [{ word: 'ANNULER', kind: 'opt-out', language: 'fr' }],
        remove: ['CANCEL'],
      },
      texts: { help: { en: '{program}: text STOP to opt out.' } },
      quietHours: { timeZone: 'Europe/Paris', window: '21:00-08:00', days: ['sunday'] },
      loopGuard: { max: 5, window: '1m' },
      group: 42,
    };
    const file = await configFile({
      locations: [location, { ...location, name: 'lyon', apiKeyId: 'lyon-key' }],
    });
    const plain = await loadConfig({ REPLYFLOW_CONFIG: file });
    expect(plain.locations[0]?.compliance).toBeUndefined();

    const config = await loadConfig({
      REPLYFLOW_CONFIG: await configFile({ locations: [{ ...location, compliance }] }),
    });
    expect(config.locations[0]?.compliance).toEqual(compliance);
    const policy = createCompliancePolicy(config.locations[0]?.compliance);
    expect(policy.match('Annuler!')).toMatchObject({ kind: 'opt-out', language: 'fr' });
    expect(policy.match('cancel')).toBeUndefined();
    expect(policy.text('help', 'en')).toBe('Salon Lila: text STOP to opt out.');
    expect(policy).toMatchObject({ group: 42, loopGuard: { max: 5, windowMs: 60_000 } });
  });

  it('refuses a bad section with a message naming the field', async () => {
    const file = await configFile({
      locations: [
        {
          ...location,
          compliance: {
            keywords: { remove: ['STOP'] },
            quietHours: { timeZone: 'Europe/Paree', window: '21h-8h' },
          },
        },
      ],
    });
    const message = await loadConfig({ REPLYFLOW_CONFIG: file }).catch((e: Error) => e.message);
    expect(message).toContain(
      "locations.0.compliance.keywords.remove.0 'STOP' cannot be removed: STOP, ARRET and HELP must always work",
    );
    expect(message).toContain(
      "locations.0.compliance.quietHours.timeZone 'Europe/Paree' is not a known time zone",
    );
    expect(message).toContain('locations.0.compliance.quietHours.window must be a window');
  });

  it('has no compliance section in the single-location env config: the defaults apply', async () => {
    const config = await loadConfig({
      REPLYFLOW_PROVIDER_URL: 'https://api.example.com/v1',
      REPLYFLOW_API_KEY_ID: 'key',
      REPLYFLOW_API_KEY_SECRET: 'secret',
    });
    expect(config.locations[0]?.compliance).toBeUndefined();
    expect(createCompliancePolicy(config.locations[0]?.compliance).language).toBe('fr');
  });
});
