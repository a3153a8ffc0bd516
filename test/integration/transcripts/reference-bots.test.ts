import { lintMessage } from 'replyflow';
import {
  createTestHarness,
  findTranscripts,
  runTranscript,
  type TestHarness,
  type TestPhone,
} from 'replyflow/testing';
import { afterEach, describe, expect, it } from 'vitest';
import appointment from '../../../bots/appointment.ts';
import help from '../../../bots/help.ts';
import optIn from '../../../bots/opt-in.ts';
import survey from '../../../bots/survey.ts';

const bots = 'bots';
const files = await findTranscripts(['transcripts']);

describe('the reference bots’ transcripts', () => {
  it('has at least 25 transcripts, some for each reference bot', () => {
    expect(files.length).toBeGreaterThanOrEqual(25);
    for (const bot of ['appointment', 'opt-in', 'survey']) {
      expect(files.filter((file) => file.includes(`transcripts/${bot}/`)).length).toBeGreaterThan(
        5,
      );
    }
  });

  for (const file of files) {
    it(file, () => runTranscript(file, { bots }));
  }
});

/** What the transcripts cannot show: the results, the contacts, and the encoding of every SMS. */
describe('the reference bots’ results and contacts', () => {
  let harness: TestHarness;
  afterEach(() => harness.close());

  const start = async () => {
    harness = await createTestHarness({
      bots: [appointment, optIn, survey, help],
      now: '2026-12-01T09:00:00+01:00',
    });
  };
  /** Creates a contact group at the emulated service, as a customer would. */
  const createGroup = async (name: string) => {
    const response = await fetch(`${harness.emulatorUrl}/v1/groups`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-api-key-id': 'harness',
        'x-api-key-secret': 'harness',
      },
      body: JSON.stringify({ name }),
    });
    expect(response.status).toBe(201);
    return ((await response.json()) as { id: number }).id;
  };
  const contactsOf = async (phone: TestPhone) => {
    const response = await fetch(
      `${harness.emulatorUrl}/_emulator/locations/${harness.location}/contacts`,
    );
    return ((await response.json()) as Array<Record<string, unknown>>).filter(
      (contact) => contact.contactPhoneNumber === phone.number,
    );
  };
  const expectGsm7 = async (phone: TestPhone) => {
    for (const message of await phone.messages()) {
      expect(lintMessage(message.body), message.body).toMatchObject({
        encoding: 'GSM-7',
        warnings: [],
      });
    }
  };

  it('opt-in: adds the contact to the group given in the input, subscribed, with its first name', async () => {
    await start();
    const group = await createGroup('Newsletter');
    const ana = harness.phone('+33 6 12 34 56 78');
    await harness.start(optIn, ana, { group });
    await ana.send('Ana');
    await harness.waitUntilIdle();
    expect(await contactsOf(ana)).toEqual([
      expect.objectContaining({ groupId: group, contactSubscribed: true, contactFirstName: 'Ana' }),
    ]);
    expect(await ana.result()).toMatchObject({
      bot: 'opt-in',
      endCode: 'final',
      fields: { subscribed: true, firstName: 'Ana' },
    });
    // JOIN from a fresh number, name skipped: subscribed without a first name.
    const sam = harness.phone('+33 6 22 22 22 22');
    await sam.send('JOIN');
    await sam.send('skip');
    expect(await sam.result()).toMatchObject({ fields: { subscribed: true, firstName: '' } });
    await expectGsm7(ana);
    await expectGsm7(sam);
  });

  it('survey: records every answer and writes the score and the comment to the columns', async () => {
    await start();
    const group = await createGroup('Survey 2026');
    // The emulator's default columns: 2 is a CHAR, 3 a DOUBLE.
    const input = { group, scoreColumn: 3, commentColumn: 2 };
    const lea = harness.phone('+33 6 12 34 56 78');
    await harness.start(survey, lea, input);
    for (const answer of ['2', 'huit', 'Accueil au top']) await lea.send(answer);
    await harness.waitUntilIdle();
    expect(await lea.result()).toMatchObject({
      endCode: 'completed',
      fields: { visit: 'fine', score: 8, comment: 'Accueil au top', completed: true },
    });
    expect(await contactsOf(lea)).toEqual([
      expect.objectContaining({ groupId: group, '3': 8, '2': 'Accueil au top' }),
    ]);
    await expectGsm7(lea);

    // Three invalid scores: the score is skipped, never recorded nor written.
    const tom = harness.phone('+33 6 33 33 33 33');
    await harness.start(survey, tom, { ...input, lang: 'en' });
    for (const answer of ['first', 'lots', 'a lot', 'really a lot', 'skip']) await tom.send(answer);
    await harness.waitUntilIdle();
    const result = await tom.result();
    expect(result?.fields).toEqual({ visit: 'excellent', completed: true });
    expect(await contactsOf(tom)).toEqual([]);
    await expectGsm7(tom);

    // No answer: expired after 3 days, recorded as not completed.
    const zoe = harness.phone('+33 6 44 44 44 44');
    await harness.start(survey, zoe, {});
    await harness.advance('3d');
    expect(await zoe.result()).toMatchObject({ endCode: 'expired', fields: { completed: false } });
  });

  it('appointment: records the outcome, the proposed date and a failed delivery’s reason', async () => {
    await start();
    const at = '2026-12-02T10:30:00+01:00';
    const ana = harness.phone('+33 6 12 34 56 78');
    await harness.start(appointment, ana, { name: 'Ana', at, place: 'Cabinet', lang: 'en' });
    for (const answer of ['no', 'Thursday 2pm', 'yes']) await ana.send(answer);
    expect(await ana.result()).toMatchObject({
      endCode: 'reschedule_requested',
      fields: { outcome: 'reschedule_requested', proposedAt: '2026-12-03T13:00:00.000Z' },
    });
    await expectGsm7(ana);

    const bob = harness.phone('+33 6 22 22 22 22');
    await harness.start(appointment, bob, { name: 'Bob', at, place: 'Cabinet' });
    for (const answer of ['non', 'mercredi 9h', 'oui']) await bob.send(answer);
    await expectGsm7(bob);

    const zoe = harness.phone('+33 6 33 33 33 33');
    await harness.failNextDelivery(zoe, 'EXPIRED');
    await harness.start(appointment, zoe, { name: 'Zoé', at, place: 'Cabinet' });
    expect(await zoe.result()).toMatchObject({
      endCode: 'delivery_failed',
      fields: { outcome: 'delivery_failed', reason: 'EXPIRED' },
    });

    const max = harness.phone('+33 6 44 44 44 44');
    await harness.start(appointment, max, { name: 'Max', at, place: 'Cabinet' });
    await harness.advance('26h'); // past the appointment time
    expect(await max.result()).toMatchObject({
      endCode: 'expired',
      fields: { outcome: 'no_answer' },
    });
  });

  it('appointment: refuses a start without an ISO date-time, naming the field', () => {
    const parsed = appointment.input!.safeParse({ name: 'Ana', at: 'mardi 10h', place: 'Cabinet' });
    expect(parsed.success).toBe(false);
    expect(JSON.stringify(parsed.error?.issues)).toMatch(/"at"/);
    expect(
      appointment.input!.safeParse({ name: 'Ana', at: '2026-12-02T10:30:00+01:00', place: 'x' })
        .success,
    ).toBe(true);
  });
});
