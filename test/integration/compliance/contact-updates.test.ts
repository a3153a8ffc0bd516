import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setup } from 'xstate';
import type { BotEvent } from '../../../src/bot/bot-events.ts';
import { createBotRegistry } from '../../../src/bot/bot-registry.ts';
import { defineBot } from '../../../src/bot/define-bot.ts';
import { record } from '../../../src/bot/record.ts';
import { reply } from '../../../src/bot/reply.ts';
import { failedWith } from '../../../src/bot/status-guards.ts';
import { updateContact } from '../../../src/bot/update-contact.ts';
import {
  location,
  type ReplyLoop,
  replyNotification,
  settle,
  startReplyLoop,
} from '../../support/reply-loop.ts';

const group = 1;

/** Asks a name, then saves the contact: with a DOUBLE of 3 decimals, or a CHAR column given a number when told "bad". */
const signup = defineBot({
  id: 'signup',
  machine: setup({ types: { events: {} as BotEvent } }).createMachine({
    initial: 'asking',
    states: {
      asking: {
        entry: reply('Your first name?'),
        on: {
          'sms.reply': {
            target: 'saving',
            actions: [
              updateContact(({ event }) => {
                const name = event.type === 'sms.reply' ? event.body : '';
                return name === 'bad'
                  ? { group, fields: { contactFirstName: name, '2': 42 } }
                  : {
                      group,
                      fields: { contactFirstName: name, contactSubscribed: true, '3': 12.345 },
                    };
              }),
              record(({ event }) => ({ name: event.type === 'sms.reply' ? event.body : '' })),
              reply('Welcome!'),
            ],
          },
        },
      },
      saving: {
        on: {
          'contact.updated': { actions: reply('Saved.') },
          'contact.failed': {
            actions: reply(
              ({ event }) => `Sorry, we could not save your details (${event.reason}).`,
            ),
          },
          // A contact update is no SMS: nothing of it comes as sms.status.
          'sms.status': { guard: failedWith(), actions: reply('An SMS failed?') },
        },
      },
    },
  }),
});

interface Contact {
  groupId: number;
  contactPhoneNumber?: string;
  contactFirstName?: string;
  contactSubscribed?: boolean;
  [column: string]: unknown;
}

describe('contact updates, from a flow and on opt-out, through the emulator', () => {
  let loop: ReplyLoop;
  beforeAll(async () => {
    loop = await startReplyLoop({
      registry: createBotRegistry([{ bot: signup, file: 'signup.ts' }]),
      compliance: { group, loopGuard: { max: 1000, window: '1m' } },
    });
    const created = await loop.app.clients.get(location)!.groups.create('Newsletter');
    expect(created).toMatchObject({ id: group });
  });
  afterAll(() => loop.close());

  const contacts = async (phone: string) => {
    const res = await fetch(`${loop.emulator.url}/_emulator/locations/${location}/contacts`);
    return ((await res.json()) as Contact[]).filter((c) => c.contactPhoneNumber === phone);
  };
  let n = 0;
  const say = async (phone: string, body: string) =>
    expect(await loop.notify(replyNotification(`c-${++n}`, phone, body))).toBe(200);

  it('adds the contact with its fields and a DOUBLE rounded to 2 decimals, once', async () => {
    const phone = '33611180001';
    await loop.start(phone, 'signup');
    await loop.waitForBodies(phone, 1);
    await say(phone, 'Ana');
    // The bot hears the update was taken, after it was.
    expect(await loop.waitForBodies(phone, 3)).toEqual(['Your first name?', 'Welcome!', 'Saved.']);
    await settle(loop, phone);
    expect(await contacts(phone)).toEqual([
      {
        id: expect.any(Number),
        groupId: group,
        contactPhoneNumber: phone,
        contactFirstName: 'Ana',
        contactSubscribed: true,
        '3': 12.35,
      },
    ]);
  });

  it('tells the bot contact.failed, with the reason, when the contact does not fit the custom columns', async () => {
    const phone = '33611180002';
    await loop.start(phone, 'signup');
    await loop.waitForBodies(phone, 1);
    await say(phone, 'bad');
    expect(await loop.waitForBodies(phone, 3)).toEqual([
      'Your first name?',
      'Welcome!',
      expect.stringMatching(
        /^Sorry, we could not save your details \(INVALID_CONTACT: .*CHAR.*\)\.$/,
      ),
    ]);
    expect(await contacts(phone)).toEqual([]);
  });

  it('marks the contact unsubscribed on STOP and subscribed again on START, when the location has a group', async () => {
    const phone = '33611180003';
    await say(phone, 'STOP');
    await loop.waitForBodies(phone, 1);
    await settle(loop, phone);
    await say(phone, 'START');
    await loop.waitForBodies(phone, 2);
    await settle(loop, phone);
    expect((await contacts(phone)).map((c) => c.contactSubscribed)).toEqual([false, true]);
  });
});
