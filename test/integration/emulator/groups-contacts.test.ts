import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { apiErrorBodySchema } from '../../../src/provider/schemas/api-error.ts';
import {
  type CustomColumn,
  customColumnSchema,
} from '../../../src/provider/schemas/custom-column.ts';
import { groupSchema } from '../../../src/provider/schemas/group.ts';
import { startTestEmulator, type TestEmulator } from './harness.ts';

describe('groups, contacts and custom columns (spec §2.3–2.5)', () => {
  let emulator: TestEmulator;
  let groupId: number;
  beforeEach(async () => {
    emulator = await startTestEmulator();
    groupId = (await emulator.api('POST', '/groups', { name: 'Patients' })).body.id;
  });
  afterEach(() => emulator.close());

  async function addContact(payload: unknown, group = groupId) {
    return emulator.api('POST', `/groups/${group}/contacts`, payload);
  }

  it('creates groups with integer ids and source "user", and lists them', async () => {
    const created = await emulator.api('POST', '/groups', { name: 'VIP' });
    expect(created.status).toBe(201);
    const group = groupSchema.strict().parse(created.body);
    expect(group).toMatchObject({ name: 'VIP', source: 'user' });
    expect(Number.isInteger(group.id)).toBe(true);
    const listed = (await emulator.api('GET', '/groups')).body;
    expect(listed.map((g: unknown) => groupSchema.parse(g).name)).toEqual(['Patients', 'VIP']);
    expect(listed.every((g: { source: string }) => g.source === 'user')).toBe(true);
  });

  it('refuses a group without a name, naming the field', async () => {
    const answer = await emulator.api('POST', '/groups', {});
    expect(answer.status).toBe(400);
    expect(apiErrorBodySchema.parse(answer.body).error.field).toBe('name');
  });

  it('seeds one custom column of each type', async () => {
    const columns = (await emulator.api('GET', '/customColumns')).body.map((c: unknown) =>
      customColumnSchema.strict().parse(c),
    );
    expect(columns.map((c: CustomColumn) => c.type).sort()).toEqual(['CHAR', 'DATETIME', 'DOUBLE']);
    expect(columns.every((c: CustomColumn) => c.deleted_at === null)).toBe(true);
  });

  it('creates a contact from an e-mail alone, answering {id, groupId, ...payload} with 201', async () => {
    const answer = await addContact({ contactEmailAddress: 'ana@example.fr' });
    expect(answer.status).toBe(201);
    expect(answer.body).toEqual({
      id: expect.any(Number),
      groupId,
      contactEmailAddress: 'ana@example.fr',
    });
  });

  it('accepts every fixed field and a value of each custom column type', async () => {
    const payload = {
      contactEmailAddress: 'ana@example.fr',
      contactPhoneNumber: '33612345678',
      contactFirstName: 'Ana',
      contactLastName: 'Lopez',
      contactSubscribed: true,
      contactBirthday: '1990-04-12T00:00:00Z',
      '1': '2026-12-01T09:30:00Z',
      '2': 'GOLD',
      '3': 12.5,
    };
    const answer = await addContact(payload);
    expect(answer.status).toBe(201);
    expect(answer.body).toMatchObject(payload);
  });

  it.each([
    [{ contactEmailAddress: 'not-an-email' }, 'contactEmailAddress'],
    [{ contactBirthday: '12/04/1990' }, 'contactBirthday'],
    [{ contactSubscribed: 'yes' }, 'contactSubscribed'],
    [{ '1': 'tomorrow' }, '1'],
    [{ '2': 42 }, '2'],
    [{ '3': '12.50' }, '3'],
    [{ '99': 'x' }, '99'],
    [{ favouriteColour: 'blue' }, 'favouriteColour'],
  ])('refuses %j with 400 naming %s', async (payload, field) => {
    const answer = await addContact(payload);
    expect(answer.status).toBe(400);
    expect(apiErrorBodySchema.parse(answer.body).error).toMatchObject({
      code: 'INVALID_CONTACT',
      field,
    });
  });

  it('answers 404 for an unknown or malformed group id', async () => {
    for (const id of ['999', 'abc']) {
      const answer = await addContact(
        { contactEmailAddress: 'ana@example.fr' },
        id as unknown as number,
      );
      expect(answer.status).toBe(404);
      expect(apiErrorBodySchema.parse(answer.body).error.code).toBe('NOT_FOUND');
    }
  });
});

describe('configured custom columns', () => {
  it('validates contacts against the columns the emulator was given', async () => {
    const column: CustomColumn = {
      id: 42,
      venueId: 7,
      userLabel: 'visit',
      type: 'DATETIME',
      created_at: '2025-01-01T00:00:00Z',
      updated_at: '2025-01-01T00:00:00Z',
      deleted_at: null,
    };
    const emulator = await startTestEmulator({ customColumns: [column] });
    try {
      expect((await emulator.api('GET', '/customColumns')).body).toEqual([column]);
      const group = (await emulator.api('POST', '/groups', { name: 'G' })).body.id;
      expect(
        (await emulator.api('POST', `/groups/${group}/contacts`, { '42': 'soon' })).status,
      ).toBe(400);
      expect((await emulator.api('POST', `/groups/${group}/contacts`, { '1': 'x' })).status).toBe(
        400,
      );
      const ok = await emulator.api('POST', `/groups/${group}/contacts`, {
        '42': '2026-01-01T10:00:00Z',
      });
      expect(ok.status).toBe(201);
    } finally {
      await emulator.close();
    }
  });
});
