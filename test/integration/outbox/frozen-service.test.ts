import { afterEach, describe, expect, it } from 'vitest';
import { createBotRegistry } from '../../../src/bot/bot-registry.ts';
import echo from '../../fixtures/bots/echo-bot.ts';
import { type FreezableProxy, startFreezableProxy } from '../../support/freezable-proxy.ts';
import { type ReplyLoop, startReplyLoop } from '../../support/reply-loop.ts';
import { waitFor } from '../../support/wait-for.ts';

/**
 * DESIGN §2.4 with a service that hangs for longer than the client's time-out plus the grace
 * (120 s against 15 s + 30 s in production): a 250 ms time-out, an 8 s grace, a 20 s freeze (under the 30 s lease).
 * The grace must still cover what a real one does: the service working through its backlog of
 * held requests and their statuses reaching replyflow after it resumes. (With 500
 * messages and a 4 s grace, 4–66 went twice in about one run of three, on the code before this
 * session's changes too: after the resume one process on 2 cores works through 500 held
 * requests, their 1,000 status notifications and as many steps, and under the load of a full
 * run that took longer than the grace. 250 messages and 8 s keep the case and leave room. The freeze stays under the lease: a longer one lets another lane take the
 * outboxes over meanwhile, which is another case.) Frozen, the service takes every request and answers none; resumed, it
 * handles every request it took, those of clients that gave up included.
 */
describe('a service frozen longer than the time-out and the grace', () => {
  let loop: ReplyLoop | undefined;
  let proxy: FreezableProxy | undefined;
  afterEach(async () => {
    await loop?.close();
    await proxy?.close();
    loop = proxy = undefined;
  });

  it('gets each of 250 messages queued while it is frozen exactly once', {
    timeout: 120_000,
  }, async () => {
    loop = await startReplyLoop({
      registry: createBotRegistry([{ bot: echo, file: 'echo.ts' }]),
      sendConcurrency: 32,
      inDoubtGraceMs: 8_000,
      providerTimeouts: { connectMs: 250, headersMs: 250, bodyMs: 250 },
      async providerUrl(emulatorBaseUrl) {
        const target = new URL(emulatorBaseUrl);
        proxy = await startFreezableProxy(target);
        return `${proxy.url}${target.pathname}`;
      },
    });
    const phones = Array.from({ length: 250 }, (_, i) => `3361119${String(i).padStart(4, '0')}`);
    proxy!.freeze();
    const frozenAt = Date.now();
    for (const phone of phones) await loop.start(phone, 'echo');
    // Frozen for over twice the time-out and the grace: most messages in doubt see their grace
    // run out meanwhile, as counted from the failed send.
    await waitFor(async () => Date.now() - frozenAt >= 20_000, {
      timeout: 30_000,
      message: 'twenty seconds frozen',
    });
    proxy!.resume();

    const res = await waitFor(
      async () => {
        const all = (await (await fetch(`${loop!.emulator.url}/_emulator/messages`)).json()) as {
          to: string;
        }[];
        const pending = await Promise.all(
          phones.map((phone) => loop!.store.pendingOutbound({ location: 'paris', phone })),
        );
        return pending.every((list) => list.length === 0) && all;
      },
      { timeout: 60_000, interval: 250, message: 'every outbox drained' },
    );
    const perPhone = new Map<string, number>();
    for (const sms of res) perPhone.set(sms.to, (perPhone.get(sms.to) ?? 0) + 1);
    const twice = phones.filter((phone) => (perPhone.get(phone) ?? 0) > 1);
    const never = phones.filter((phone) => !perPhone.has(phone));
    expect({ sent: res.length, twice: twice.length, never: never.length }).toEqual({
      sent: 250,
      twice: 0,
      never: 0,
    });
  });
});
