import { describe, expect, it } from 'vitest';
import { formatRecord, formatTable } from '../../../src/cli/format-table.ts';

describe('formatTable', () => {
  it('aligns columns on their widest cell and joins lists', () => {
    const rows = [
      { id: 'a', url: 'https://x.example/hook', events: ['sms.status', 'sms.reply'] },
      { id: 'bbbb', url: 'https://y.example', events: ['sms.status'] },
    ];
    expect(formatTable(rows, ['id', 'url', 'events'])).toBe(
      [
        'id    url                     events',
        'a     https://x.example/hook  sms.status,sms.reply',
        'bbbb  https://y.example       sms.status',
      ].join('\n'),
    );
  });

  it('says so when there is nothing to list', () => {
    expect(formatTable([], ['id'])).toBe('(none)');
  });
});

describe('formatRecord', () => {
  it('aligns keys, shows null as -, and leaves out what is undefined', () => {
    expect(formatRecord({ id: 7, name: 'VIP', deletedAt: null, price: undefined })).toBe(
      ['id         7', 'name       VIP', 'deletedAt  -'].join('\n'),
    );
  });
});
