import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ValidationError } from '../../../src/errors.ts';
import { createLogger } from '../../../src/observability/logger.ts';
import type { ProviderWarning } from '../../../src/provider/provider-warning.ts';
import { type ProviderEmulator, startProviderEmulator } from './provider-emulator.ts';

let world: ProviderEmulator;
let groupId: number;

beforeEach(async () => {
  world = await startProviderEmulator();
  groupId = (await world.client().groups.create('Contacts')).id;
});
afterEach(async () => {
  await world.close();
});

function setup() {
  const warnings: ProviderWarning[] = [];
  const lines: string[] = [];
  let now = 0;
  const client = world.client({
    onWarning: (warning) => warnings.push(warning),
    logger: createLogger({
      destination: new Writable({
        write(chunk, _encoding, done) {
          lines.push(String(chunk));
          done();
        },
      }),
    }),
    clock: { now: () => now },
    customColumnsTtlMs: 60_000,
  });
  return {
    client,
    warnings,
    lines,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

const columnListings = () => world.requests('GET /v1/customColumns');
const contactPosts = () => world.requests(`POST /v1/groups/${groupId}/contacts`);

async function refusal(promise: Promise<unknown>): Promise<ValidationError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ValidationError);
  return error as ValidationError;
}

describe('contacts.add checks the payload against the custom columns first', () => {
  it('sends a DOUBLE with more than 2 decimals, warning that campaigns round it', async () => {
    const t = setup();
    await t.client.contacts.add(groupId, { contactEmailAddress: 'ana@example.com', '3': 12.345 });
    expect(t.warnings).toEqual([
      expect.objectContaining({
        code: 'DOUBLE_ROUNDED_IN_CAMPAIGNS',
        field: '3',
        location: 'paris',
      }),
    ]);
    expect(t.warnings[0]?.message).toContain('12.35');
    expect(t.lines.join('')).toContain('"level":40');
    expect(await contactPosts()).toHaveLength(1);
  });

  it('does not warn for 2 decimals', async () => {
    const t = setup();
    await t.client.contacts.add(groupId, { contactEmailAddress: 'ana@example.com', '3': 12.34 });
    expect(t.warnings).toEqual([]);
  });

  it('refuses a DATETIME that is not ISO 8601, before any request', async () => {
    const t = setup();
    const error = await refusal(
      t.client.contacts.add(groupId, {
        contactEmailAddress: 'ana@example.com',
        '1': '21/11/2026 9:30',
      }),
    );
    expect(error.code).toBe('INVALID_CONTACT');
    expect(error.field).toBe('contact.1');
    expect(error.message).toContain('ISO 8601');
    expect(await contactPosts()).toHaveLength(0);
  });

  it('lists every problem: wrong types, unknown fields, a bad e-mail', async () => {
    const t = setup();
    const error = await refusal(
      t.client.contacts.add(groupId, {
        contactEmailAddress: 'not-an-email',
        '2': 42 as unknown as string,
        nickname: 'Ana',
      } as never),
    );
    expect(error.message).toContain("2: custom column 2 ('loyalty_code', CHAR) takes a string");
    expect(error.message).toContain("unknown contact field 'nickname'");
    expect(error.message).toContain('contactEmailAddress');
  });

  it('lists the columns once per TTL', async () => {
    const t = setup();
    const contact = { contactEmailAddress: 'ana@example.com', '2': 'gold' };
    await t.client.contacts.add(groupId, contact);
    await t.client.contacts.add(groupId, contact);
    expect(await columnListings()).toHaveLength(1);
    t.advance(60_000);
    await t.client.contacts.add(groupId, contact);
    expect(await columnListings()).toHaveLength(2);
  });

  it('checks an unknown column id once more against a fresh list before refusing it', async () => {
    const t = setup();
    await t.client.contacts.add(groupId, { contactEmailAddress: 'ana@example.com' });
    const error = await refusal(
      t.client.contacts.add(groupId, { contactEmailAddress: 'ana@example.com', '99': 'x' }),
    );
    expect(error.message).toContain('no custom column has id 99');
    expect(await columnListings()).toHaveLength(2);
  });

  it('refuses a group id that is not an integer', async () => {
    const t = setup();
    const error = await refusal(t.client.contacts.add(1.5, { contactEmailAddress: 'a@b.co' }));
    expect(error.field).toBe('groupId');
  });
});
