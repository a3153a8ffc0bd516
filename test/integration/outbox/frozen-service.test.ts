import { afterEach, describe, expect, it } from 'vitest';
import { createBotRegistry } from '../../../src/bot/bot-registry.ts';
import { createManualClock } from '../../../src/scheduler/create-manual-clock.ts';
import type { Claim } from '../../../src/store/store.ts';
import echo from '../../fixtures/bots/echo-bot.ts';
import { type FreezableProxy, startFreezableProxy } from '../../support/freezable-proxy.ts';
import { LogCapture } from '../../support/log-capture.ts';
import {
  type NotificationRelay,
  startNotificationRelay,
} from '../../support/notification-relay.ts';
import { location, type ReplyLoop, startReplyLoop } from '../../support/reply-loop.ts';
import { waitFor } from '../../support/wait-for.ts';

const messages = 500;
/** Production's figures: the incident's freeze, the lease and the in-doubt grace (both defaults). */
const freezeMs = 120_000;
const leaseMs = 30_000;
const graceMs = 30_000;
/** How far the clock moves per step, and how many notifications the service delivers per step. */
const stepMs = 10_000;
const notificationsPerStep = 100;

/**
 * DESIGN §2.4 with a service that hangs far longer than the client's time-out, the grace and the
 * lease (issue 21, item 3: 500 messages queued while the service was frozen 120 s became 602
 * SMS). On the manual clock, with production's 30 s lease and 30 s grace:
 *
 * - frozen, the service takes every request and answers none (a TCP proxy holds what clients
 *   write): each of the 500 sends times out (250 ms, real time) and is in doubt;
 * - another sender process claims some of the outboxes and stalls: replyflow takes them over
 *   once their lease ends, during the freeze;
 * - 120 s on, the service resumes: it handles every request it held, those of clients that gave
 *   up included, and answers pings at once; but its notifications reach replyflow late, 100
 *   per 10 s (a relay holds them: a backlog it works through, deliveries it retries), so the
 *   last statuses of the sends in doubt come some 100 s after the service answered again, over
 *   three times the grace.
 *
 * Each message must reach the handset exactly once: found sent by its status, never sent again.
 * (Counting the grace from the service's first answer alone, the messages whose status came
 * later than the grace went twice.)
 */
describe('a service frozen far longer than the time-out, the grace and the lease', () => {
  let loop: ReplyLoop | undefined;
  let proxy: FreezableProxy | undefined;
  let relay: NotificationRelay | undefined;
  afterEach(async () => {
    await loop?.close();
    await proxy?.close();
    await relay?.close();
    loop = proxy = relay = undefined;
  });

  it('gets each of 500 messages queued while it is frozen 120 s exactly once, its statuses arriving late', {
    timeout: 600_000,
  }, async () => {
    const clock = createManualClock(Date.parse('2026-11-25T10:00:00Z'));
    const logs = new LogCapture();
    loop = await startReplyLoop({
      registry: createBotRegistry([{ bot: echo, file: 'echo.ts' }]),
      clock,
      logStream: logs.stream,
      sendConcurrency: 32,
      inDoubtGraceMs: graceMs,
      // A stopped process's kernel still takes connections: the requests are written, and it
      // is their answers that time out (the production default connect time-out, 5 s).
      providerTimeouts: { connectMs: 5_000, headersMs: 250, bodyMs: 250 },
      // The service's notifications go through the relay, registered below.
      webhook: false,
      // The spec's 4 s answer deadline, unscaled: scaled to 40 ms, the relay's answers would
      // time out in a busy process, and the emulator would send each notification again and
      // again. Its retries 1 s apart and more (not 10 ms): under a full run's load, ten quick
      // ones could all fail, and the notification would be given up.
      emulator: { webhookRetry: { timeoutMs: 400_000, baseMs: 100_000 } },
      async providerUrl(emulatorBaseUrl) {
        const target = new URL(emulatorBaseUrl);
        proxy = await startFreezableProxy(target);
        return `${proxy.url}${target.pathname}`;
      },
    });
    const { store, emulator } = loop;
    relay = await startNotificationRelay(loop.webhookUrl);
    await loop.app.clients.get(location)!.webhooks.ensure(relay.url, ['sms.status', 'sms.reply']);
    const phones = Array.from(
      { length: messages },
      (_, i) => `3361119${String(i).padStart(4, '0')}`,
    );
    const accepted = async () =>
      (await (await fetch(`${emulator.url}/_emulator/messages`)).json()) as { to: string }[];
    const heads = () =>
      Promise.all(
        phones.map(async (phone) => (await store.pendingOutbound({ location, phone }))[0]),
      );
    // Nothing is due in the outbox at the clock's time: every look the sender was to make at
    // it is made (a message in doubt looks for its status again a little later).
    const senderCaughtUp = async () => {
      const now = clock.now();
      for (let p = 0; p < store.partitions; p++) {
        const next = await store.nextReadyAt('outbox', p);
        if (next !== null && next <= now) return false;
      }
      return true;
    };
    const step = async (ms: number) => {
      clock.advance(ms);
      await waitFor(senderCaughtUp, {
        timeout: 120_000,
        interval: 50,
        message: 'sender caught up',
      });
    };

    proxy!.freeze();
    const frozenAt = clock.now();
    for (const phone of phones) await loop.start(phone, 'echo');
    // Each message was sent once into the frozen service, and its request timed out: in doubt.
    await waitFor(async () => (await heads()).every((head) => head?.inDoubtSince !== undefined), {
      timeout: 300_000,
      interval: 500,
      message: 'every message in doubt',
    });
    // Another sender process claims some of the outboxes (its clock a step ahead) and stalls.
    const stalled: Claim[] = [];
    for (let p = 0; p < store.partitions; p++) {
      const claim = await store.claim('outbox', p, leaseMs, clock.now() + stepMs);
      if (claim) stalled.push(claim);
    }
    expect(stalled.length).toBeGreaterThan(0);
    // 120 s frozen, well past the lease: the stalled claims are taken over meanwhile.
    while (clock.now() - frozenAt < freezeMs) await step(stepMs);
    const takenOver = () =>
      logs.lines.filter((line) =>
        line.includes('the first message of this outbox may have been sent'),
      ).length;
    expect(takenOver()).toBeGreaterThanOrEqual(stalled.length);
    // Frozen, nothing could confirm a send, and nothing was sent again.
    expect(await accepted()).toEqual([]);

    proxy!.resume();
    // The service handles every request it held (a request whose connection timed out before
    // the proxy took it never reached it), and the notifications of each sms (sent, then
    // delivered) are on their way, held by the relay.
    await waitFor(async () => proxy!.unanswered() === 0, {
      timeout: 300_000,
      message: 'the held requests handled',
    });
    const reached = (await accepted()).length;
    const sentStatuses = () =>
      relay!.held.filter((n) => n.envelope.data.some((item) => item.status === 'sent')).length;
    await waitFor(async () => sentStatuses() >= reached, {
      timeout: 300_000,
      message: 'every sent status on its way',
    });

    // The service answers again (the sender pings it), and its notifications come, late.
    const drained = async () =>
      (await heads()).every((head) => head === undefined) && relay!.held.length === 0;
    const answeredAt = clock.now();
    let lastRelease = answeredAt;
    while (!(await drained())) {
      if ((await relay!.release(notificationsPerStep)) > 0) lastRelease = clock.now();
      await step(stepMs);
      expect(clock.now() - frozenAt).toBeLessThan(3_600_000);
    }

    const perPhone = new Map<string, number>();
    const sms = await accepted();
    for (const { to } of sms) perPhone.set(to, (perPhone.get(to) ?? 0) + 1);
    const found = logs.lines.filter((line) => line.includes('recorded, not sent again')).length;
    expect({
      sent: sms.length,
      twice: phones.filter((phone) => (perPhone.get(phone) ?? 0) > 1).length,
      never: phones.filter((phone) => !perPhone.has(phone)).length,
      foundByStatus: found,
    }).toEqual({ sent: messages, twice: 0, never: 0, foundByStatus: reached });
    console.log(
      `frozen service: ${reached} of ${messages} sends reached the frozen service and were found sent by their status, ` +
        `${messages - reached} never reached it and went once after the grace; ${takenOver()} heads taken over during the freeze; ` +
        `the last status came ${Math.round((lastRelease - answeredAt) / 1000)} s after it resumed`,
    );
  });
});
