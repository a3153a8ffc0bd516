import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/app/config.ts';
import { startReplyflow } from '../../../src/app/start-replyflow.ts';
import { createLogger } from '../../../src/observability/logger.ts';
import { createMemoryStore } from '../../../src/store/memory/create-memory-store.ts';

function captured() {
  const stream = new PassThrough();
  const lines: Record<string, unknown>[] = [];
  stream.on('data', (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line));
  });
  return { logger: createLogger({ level: 'info', destination: stream }), lines };
}

describe('when the bots load', () => {
  it('logs the table of reply texts at info and one warn line per text that forces UCS-2', async () => {
    const { logger, lines } = captured();
    const config = await loadConfig({ REPLYFLOW_BOTS_DIR: 'test/fixtures/lint-bots' });
    const app = await startReplyflow({
      config,
      logger,
      clients: new Map(),
      store: createMemoryStore(),
      roles: { web: false, worker: false, sender: false, scheduler: false },
    });
    await app.close();
    await new Promise((resolve) => setImmediate(resolve));

    const table = lines.find((line) => String(line.msg).startsWith('bot reply texts'));
    expect(table).toMatchObject({ level: 30, texts: 5, withWarnings: 2 });
    expect(String(table?.msg)).toMatch(/confirm\.asking on sms\.reply\s+UCS-2\s+1\s+19\s+"Merci/);
    expect(String(table?.msg)).toContain("! '’' (U+2019) forces UCS-2");
    const warns = lines.filter((line) => line.level === 40);
    expect(warns).toEqual([
      expect.objectContaining({
        bot: 'confirm',
        where: 'confirm.asking on sms.reply',
        encoding: 'UCS-2',
        parts: 1,
        warnings: [expect.stringContaining("write ' instead")],
        msg: 'a reply text costs more than it could',
      }),
      expect.objectContaining({ where: 'confirm.done.bye entry', warnings: expect.any(Array) }),
    ]);
  });
});
