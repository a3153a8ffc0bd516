import type { Command } from 'commander';
import { clientAction, withClientOptions } from './client-action.ts';
import { formatTable } from './format-table.ts';

/** `replyflow columns list`: the custom columns a contact can fill (`--field ID=VALUE`). */
export function registerColumnsCommand(program: Command): void {
  const columns = program.command('columns').description('Show the custom contact columns');
  withClientOptions(
    columns.command('list').description('List the custom columns, with the id to use in --field'),
  ).action(
    clientAction(async (client) => {
      const list = await client.customColumns.list();
      const rows = list.map((c) => ({ ...c, deleted: c.deleted_at ?? undefined }));
      return { json: list, text: formatTable(rows, ['id', 'type', 'userLabel', 'deleted']) };
    }),
  );
}
