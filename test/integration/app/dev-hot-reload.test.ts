import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/app/config.ts';
import { type RunningDev, startDev } from '../../../src/app/start-dev.ts';
import type { StoredSms } from '../../../src/emulator/index.ts';
import { freePort } from '../../support/free-port.ts';
import { waitFor } from '../../support/wait-for.ts';

/** A bot file as a developer writes it: `text` is in its replies, `extra` adds a state (a new version). */
function botFile(
  id: string,
  text: string,
  options: { extraState?: boolean; migrate?: boolean } = {},
) {
  return `import { setup } from 'xstate';
import { defineBot, reply } from 'replyflow';
export default defineBot({
  id: '${id}',
  triggers: { keywords: ['${id.toUpperCase()}'] },
  ${options.migrate ? 'migrate: ({ snapshot }) => snapshot,' : ''}
  machine: setup({}).createMachine({
    initial: 'asking',
    states: {
      asking: {
        entry: reply('${text}: question'),
        on: { 'sms.reply': { target: 'asked', actions: reply('${text}: got it') } },
      },
      asked: { on: { 'sms.reply': { actions: reply('${text}: again') } } },
      ${options.extraState ? "extra: { entry: reply('extra') }," : ''}
    },
  }),
});
`;
}

describe('replyflow dev reloads bots/ while it runs', () => {
  let dir: string;
  let dev: RunningDev;
  let logs = '';
  beforeAll(async () => {
    // Inside the checkout, so the bot files resolve 'replyflow' and xstate as a project's would.
    await mkdir(resolve('.scratch'), { recursive: true });
    dir = await mkdtemp(join(resolve('.scratch'), 'hot-reload-'));
    await writeFile(join(dir, 'greeter.ts'), botFile('greeter', 'v1'));
    const config = await loadConfig({ PORT: '0', REPLYFLOW_BOTS_DIR: dir, LOG_LEVEL: 'info' });
    const capture = new Writable({
      write(chunk, _encoding, done) {
        logs += String(chunk);
        done();
      },
    });
    dev = await startDev(config, pino({ level: 'info' }, capture));
  });
  afterAll(async () => {
    await dev?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const bots = async () =>
    ((await (await fetch(`${dev.url}/dev/bots`)).json()) as { id: string }[]).map((b) => b.id);
  const messages = async (phone: string) =>
    (await (await fetch(`${dev.url}/_emulator/messages?to=${phone}`)).json()) as StoredSms[];
  const bodies = async (phone: string) => (await messages(phone)).map((m) => m.body);
  async function start(bot: string, phone: string) {
    const res = await fetch(`${dev.url}/dev/conversations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ bot, phone }),
    });
    expect(res.status).toBe(202);
    await waitFor(async () => (await messages(phone)).some((m) => m.status === 'delivered'), {
      message: 'the first message delivered',
    });
  }
  async function answer(phone: string, body: string) {
    const res = await fetch(`${dev.url}/_emulator/replies`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ from: phone, body }),
    });
    expect(res.status).toBe(201);
  }

  it('serves a bot file added while it runs within 2 s', async () => {
    expect(await bots()).toEqual(['greeter']);
    await writeFile(join(dir, 'newcomer.ts'), botFile('newcomer', 'new'));
    await waitFor(async () => (await bots()).includes('newcomer'), {
      timeout: 2_000,
      message: 'the new bot listed',
    });
    await start('newcomer', '33611000001');
    expect(await bodies('33611000001')).toEqual(['new: question']);
  });

  it('a file changed without changing its machine is reloaded within 2 s as the same version, and its conversations go on', async () => {
    const phone = '33611000002';
    await start('greeter', phone);
    // A comment: the file changed, the machine did not (a reply text would be a new version).
    await writeFile(join(dir, 'greeter.ts'), `// reviewed\n${botFile('greeter', 'v1')}`);
    await waitFor(async () => /bot 'greeter' reloaded, same version/.test(logs), {
      timeout: 2_000,
      message: 'the reload logged',
    });
    await answer(phone, 'yes');
    await waitFor(async () => (await bodies(phone)).includes('v1: got it'), {
      message: 'the running conversation answered',
    });
    const record = await dev.store.getConversation({ location: dev.location, phone });
    expect(record).toMatchObject({ status: 'active', botId: 'greeter' });
  });

  it('a new version without migrate() ends the running conversation at its next event, with a notice', async () => {
    const phone = '33611000003';
    await start('greeter', phone);
    const before = dev.registry.bots.get('greeter')!.version;
    await writeFile(join(dir, 'greeter.ts'), botFile('greeter', 'v3', { extraState: true }));
    await waitFor(() => dev.registry.bots.get('greeter')!.version !== before, { timeout: 2_000 });
    expect(logs).toMatch(/bot 'greeter' changed: its live conversations end at their next event/);
    await answer(phone, 'yes');
    await waitFor(
      async () =>
        (await dev.store.getConversation({ location: dev.location, phone }))?.endedReason ===
        'version_changed',
      { message: 'the conversation ended with version_changed' },
    );
    expect(logs).toMatch(/conversation ended: it cannot resume/);
  });

  it('a new version with migrate() carries the running conversation over', async () => {
    const phone = '33611000004';
    await start('greeter', phone);
    const before = dev.registry.bots.get('greeter')!.version;
    await writeFile(join(dir, 'greeter.ts'), botFile('greeter', 'v4', { migrate: true }));
    await waitFor(() => dev.registry.bots.get('greeter')!.version !== before, { timeout: 2_000 });
    expect(logs).toMatch(/bot 'greeter' changed: its live conversations go through migrate\(\)/);
    await answer(phone, 'yes');
    await waitFor(async () => (await bodies(phone)).includes('v4: got it'), {
      message: 'the migrated conversation answered',
    });
  });

  it('a broken file keeps the previous version serving, with its error in errors() and the log', async () => {
    const changes: unknown[] = [];
    const unsubscribe = dev.bots.onChange((change) => changes.push(change));
    await writeFile(join(dir, 'greeter.ts'), 'export default defineBot({ id: "greeter", ');
    await waitFor(() => dev.bots.errors().length > 0, { timeout: 2_000, message: 'the error' });
    unsubscribe();
    expect(dev.bots.errors()).toEqual([
      {
        file: expect.stringMatching(/greeter\.ts$/),
        message: expect.stringMatching(/does not load/),
      },
    ]);
    expect(changes).toContainEqual({ reloaded: [], errors: dev.bots.errors() });
    expect(logs).toMatch(/bot file not loaded; its previous version \(if any\) keeps serving/);
    expect(await bots()).toContain('greeter');
    const phone = '33611000005';
    await start('greeter', phone);
    expect(await bodies(phone)).toEqual(['v4: question']);
    // Fixed: the error goes away.
    await writeFile(join(dir, 'greeter.ts'), botFile('greeter', 'v5', { migrate: true }));
    await waitFor(() => dev.bots.errors().length === 0, { timeout: 2_000, message: 'no error' });
  });

  it('a file exporting no bot is reported, and two bots with one id keep the previous set', async () => {
    await writeFile(join(dir, 'notes.ts'), 'export const x = 1;\n');
    await waitFor(() => dev.bots.errors().some((e) => /exports no bot/.test(e.message)), {
      timeout: 2_000,
    });
    await rm(join(dir, 'notes.ts'));
    await writeFile(join(dir, 'twin.ts'), botFile('greeter', 'twin'));
    await waitFor(() => dev.bots.errors().some((e) => /defined twice/.test(e.message)), {
      timeout: 2_000,
    });
    expect(dev.registry.bots.has('greeter')).toBe(true);
    await rm(join(dir, 'twin.ts'));
    await waitFor(() => dev.bots.errors().length === 0, { timeout: 2_000 });
  });
});

describe('replyflow dev, as a process, reloads bots and the helpers they import', () => {
  it('serves a new file, and a changed helper, within 2 s', { timeout: 60_000 }, async () => {
    await mkdir(resolve('.scratch'), { recursive: true });
    const dir = await mkdtemp(join(resolve('.scratch'), 'hot-reload-cli-'));
    await mkdir(join(dir, 'lib'));
    await writeFile(join(dir, 'lib', 'text.ts'), "export const greeting = 'helper v1';\n");
    await writeFile(
      join(dir, 'greeter.ts'),
      `import { setup } from 'xstate';
import { defineBot, reply } from 'replyflow';
import { greeting } from './lib/text.ts';
export default defineBot({ id: 'greeter', machine: setup({}).createMachine({ entry: reply(greeting) }) });
`,
    );
    const port = await freePort();
    const child = spawn(process.execPath, ['bin/replyflow.js', 'dev', '--port', String(port)], {
      env: { PATH: process.env.PATH, REPLYFLOW_BOTS_DIR: dir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    const url = `http://127.0.0.1:${port}`;
    const greet = async (phone: string) => {
      await fetch(`${url}/dev/conversations`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ bot: 'greeter', phone }),
      });
      return waitFor(
        async () =>
          ((await (await fetch(`${url}/_emulator/messages?to=${phone}`)).json()) as StoredSms[])[0]
            ?.body,
        { message: `greeted ${phone}` },
      );
    };
    try {
      await waitFor(() => output.includes('dev phone:'), { timeout: 20_000, message: output });
      expect(await greet('33611000101')).toBe('helper v1');
      await writeFile(join(dir, 'lib', 'text.ts'), "export const greeting = 'helper v2';\n");
      // Its text changed, so its version did too: 'changed' (a same-version reload says 'reloaded').
      await waitFor(() => /bot 'greeter' (reloaded|changed)/.test(output), {
        timeout: 2_000,
        message: 'the helper change reloaded the bot',
      });
      expect(await greet('33611000102')).toBe('helper v2');
      await writeFile(join(dir, 'second.ts'), botFile('second', 'two'));
      await waitFor(
        async () =>
          ((await (await fetch(`${url}/dev/bots`)).json()) as { id: string }[]).some(
            (bot) => bot.id === 'second',
          ),
        { timeout: 2_000, message: 'the new bot served' },
      );
    } finally {
      child.kill('SIGTERM');
      await new Promise((done) => child.once('exit', done));
      await rm(dir, { recursive: true, force: true });
    }
  });
});
