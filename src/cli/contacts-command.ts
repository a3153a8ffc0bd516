import { type Command, InvalidArgumentError } from 'commander';
import type { MessagingClient } from '../provider/messaging-client.ts';
import type { ContactPayload } from '../provider/schemas/contact.ts';
import { clientAction, withClientOptions } from './client-action.ts';
import { formatRecord } from './format-table.ts';

interface AddOptions {
  group: number;
  email?: string;
  phone?: string;
  firstName?: string;
  lastName?: string;
  subscribed?: boolean;
  birthday?: string;
  field: [string, string][];
}

/** `replyflow contacts add`: add one contact to a group, custom columns included. */
export function registerContactsCommand(program: Command): void {
  const contacts = program.command('contacts').description('Add contacts to groups');
  withClientOptions(
    contacts
      .command('add')
      .description(
        'Add a contact to a group; the payload is checked against the custom columns first',
      )
      .requiredOption('--group <id>', 'group id (see: replyflow groups list)', parseGroupId)
      .option('--email <address>', 'contactEmailAddress')
      .option('--phone <number>', 'contactPhoneNumber')
      .option('--first-name <name>', 'contactFirstName')
      .option('--last-name <name>', 'contactLastName')
      .option('--subscribed', 'contactSubscribed: true')
      .option('--no-subscribed', 'contactSubscribed: false')
      .option('--birthday <iso>', 'contactBirthday, ISO 8601 (1990-04-01T00:00:00Z)')
      .option(
        '--field <id=value>',
        'a custom column value, repeatable (see: replyflow columns list)',
        collectField,
        [],
      ),
  ).action(
    clientAction<AddOptions>(async (client, options) => {
      const contact: Record<string, unknown> = {
        contactEmailAddress: options.email,
        contactPhoneNumber: options.phone,
        contactFirstName: options.firstName,
        contactLastName: options.lastName,
        contactSubscribed: options.subscribed,
        contactBirthday: options.birthday,
        ...(await typedFields(client, options.field)),
      };
      for (const key of Object.keys(contact)) if (contact[key] === undefined) delete contact[key];
      const added = await client.contacts.add(options.group, contact as ContactPayload);
      const text = `added to group ${options.group}\n${formatRecord(readable(added ?? contact))}`;
      return { json: added, text };
    }),
  );
}

/**
 * A command line only has strings: DOUBLE columns get a number, so `--field 3=12.5` means 12.5.
 * A value that is not a number stays a string, and the client's check then names the column.
 */
async function typedFields(client: MessagingClient, fields: [string, string][]) {
  if (fields.length === 0) return {};
  const columns = await client.customColumns.list();
  return Object.fromEntries(
    fields.map(([id, value]) => {
      const type = columns.find((column) => String(column.id) === id)?.type;
      const number = Number(value);
      return [
        id,
        type === 'DOUBLE' && value.trim() !== '' && Number.isFinite(number) ? number : value,
      ];
    }),
  );
}

function collectField(value: string, previous: [string, string][]): [string, string][] {
  const match = /^(\d+)=(.*)$/s.exec(value);
  if (!match)
    throw new InvalidArgumentError(`write it as ID=VALUE, such as 3=12.5 (got '${value}')`);
  return [...previous, [match[1] ?? '', match[2] ?? '']];
}

function parseGroupId(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('a group id is an integer');
  return Number(value);
}

/** The service's answer for people: fixed fields first, then custom columns by label-less id. */
function readable(value: unknown): Record<string, string | number | boolean | undefined> {
  if (typeof value !== 'object' || value === null) return { response: String(value) };
  const entries = Object.entries(value).map(([key, v]): [string, string | number | boolean] => [
    /^\d+$/.test(key) ? `column ${key}` : key,
    typeof v === 'object' ? JSON.stringify(v) : v,
  ]);
  // Integer-like keys come first in a JS object; people expect the named fields first.
  return Object.fromEntries([
    ...entries.filter(([key]) => !key.startsWith('column ')),
    ...entries.filter(([key]) => key.startsWith('column ')),
  ]);
}
