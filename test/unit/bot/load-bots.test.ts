import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadBots } from '../../../src/bot/load-bots.ts';

const src = resolve('src/bot');

function botFile(id: string, keywords: string[], extra = ''): string {
  return `import { setup } from 'xstate';
import { defineBot } from '${src}/define-bot.ts';
export default defineBot({ id: '${id}', triggers: { keywords: ${JSON.stringify(keywords)} }, ${extra} machine: setup({}).createMachine({}) });
`;
}

async function folder(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'rf-bots-'));
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
  return dir;
}

describe('loadBots', () => {
  it('loads every bot file and indexes keywords, folded', async () => {
    const dir = await folder({
      'rdv.ts': botFile('rdv', ['RDV', 'Rendez-vous']),
      'stop.ts': botFile('help', [], 'fallback: true,'),
      'notes.md': 'not a bot',
    });
    const registry = await loadBots(dir);
    expect([...registry.bots.keys()].sort()).toEqual(['help', 'rdv']);
    expect(registry.byKeyword.get('rdv')?.id).toBe('rdv');
    expect(registry.byKeyword.get('rendezvous')?.id).toBe('rdv');
    expect(registry.fallback?.id).toBe('help');
  });

  it('refuses a duplicate bot id, naming both files', async () => {
    const dir = await folder({ 'a.ts': botFile('same', ['a']), 'b.ts': botFile('same', ['b']) });
    await expect(loadBots(dir)).rejects.toThrow(
      /bot id 'same' is defined twice: in .*a\.ts and in .*b\.ts/,
    );
  });

  it('refuses a keyword claimed by two bots, naming both bots and files', async () => {
    const dir = await folder({
      'a.ts': botFile('one', ['Stop']),
      'b.ts': botFile('two', ['STOP']),
    });
    await expect(loadBots(dir)).rejects.toThrow(
      /keyword 'stop' is claimed by two bots: 'one' \(.*a\.ts\) and 'two' \(.*b\.ts\)/,
    );
  });

  it('refuses a file that exports no bot, and one that does not load', async () => {
    const dir = await folder({
      'empty.ts': 'export const x = 1;\n',
      'broken.ts': 'throw new Error("syntax of doom");\n',
    });
    const error = await loadBots(dir).catch((e: Error) => e);
    expect(error).toMatchObject({ code: 'BOT_DEFINITION_INVALID' });
    expect(String((error as Error).message)).toMatch(/empty\.ts exports no bot/);
    expect(String((error as Error).message)).toMatch(/broken\.ts does not load: syntax of doom/);
  });

  it('says how to fix a missing folder', async () => {
    await expect(loadBots('/nonexistent/bots')).rejects.toThrow(/REPLYFLOW_BOTS_DIR/);
  });
});
