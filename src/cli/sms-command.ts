import type { Command } from 'commander';
import type { Sms } from '../provider/schemas/sms.ts';
import { clientAction, withClientOptions } from './client-action.ts';
import { formatRecord } from './format-table.ts';

interface SendOptions {
  to: string;
  body: string;
  from?: string;
  shortenUrls?: boolean;
  transactional?: boolean;
}

/** `replyflow sms send|get`: send one SMS, read one back. */
export function registerSmsCommand(program: Command): void {
  const sms = program.command('sms').description('Send an SMS or read its status');
  withClientOptions(
    sms
      .command('send')
      .description('Send one SMS (from the short code unless --from is given)')
      .requiredOption(
        '--to <phone>',
        'recipient, international or national with the location default country',
      )
      .requiredOption('--body <text>', 'message text')
      .option(
        '--from <sender>',
        'sender name; empty (the default) is the short code, the only sender people can reply to',
      )
      .option('--shorten-urls', 'let the service shorten URLs in the body')
      .option('--transactional', 'mark the message as transactional'),
  ).action(
    clientAction<SendOptions>(async (client, options) => {
      const sent = await client.sms.send({
        to: options.to,
        body: options.body,
        from: options.from,
        shortenUrls: options.shortenUrls,
        isTransactional: options.transactional,
      });
      return { json: sent, text: describeSms(sent) };
    }),
  );
  withClientOptions(
    sms
      .command('get')
      .description('Show an SMS and its current status')
      .argument('<id>', 'the SMS id'),
  ).action(
    clientAction(async (client, _options, [id = '']) => {
      const found = await client.sms.get(id);
      return { json: found, text: describeSms(found) };
    }),
  );
}

function describeSms(sms: Sms): string {
  return formatRecord({
    id: sms.id,
    status: sms.status,
    statusReason: sms.statusReason || '-',
    to: sms.to,
    from: sms.from || '(short code)',
    body: sms.body,
    shortenUrls: sms.shortenUrls,
    isTransactional: sms.isTransactional,
    parts: sms.parts,
    price: sms.price,
    createdAt: sms.createdAt,
    updatedAt: sms.updatedAt,
  });
}
