import type { Command } from 'commander';
import { clientAction, withClientOptions } from './client-action.ts';
import { formatRecord, formatTable } from './format-table.ts';

/** `replyflow groups list|create NAME`: the account's contact groups. */
export function registerGroupsCommand(program: Command): void {
  const groups = program.command('groups').description('List or create contact groups');
  withClientOptions(groups.command('list').description('List the contact groups')).action(
    clientAction(async (client) => {
      const list = await client.groups.list();
      return { json: list, text: formatTable(list, ['id', 'name', 'source', 'createdAt']) };
    }),
  );
  withClientOptions(
    groups.command('create').description('Create a contact group').argument('<name>', 'group name'),
  ).action(
    clientAction(async (client, _options, [name = '']) => {
      const group = await client.groups.create(name);
      return { json: group, text: formatRecord(group) };
    }),
  );
}
