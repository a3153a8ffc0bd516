import { afterEach, describe, expect, it } from 'vitest';
import { createClientGateway } from '../../../src/app/create-client-gateway.ts';
import { createBotRegistry } from '../../../src/bot/bot-registry.ts';
import type { Store } from '../../../src/store/store.ts';
import echo from '../../fixtures/bots/echo-bot.ts';
import { location, type ReplyLoop, startReplyLoop } from '../../support/reply-loop.ts';
import { waitFor } from '../../support/wait-for.ts';

const greeting = 'Echo bot here. Say anything.';
const registry = createBotRegistry([{ bot: echo, file: 'echo-bot.ts' }]);
/** The dead sender's lease: its outbox is taken over this long after its claim. */
const deadLeaseMs = 1_000;

/**
 * DESIGN §2.4 over real HTTP and Redis: a sender dies holding an outbox claim, and a sender in
 * another instance takes the outbox over when its lease runs out. The loop's own instance runs
 * the webhook and the worker only; the "dead" sender is the test, which claims the outbox and
 * (maybe) sends its head, then never records it.
 */
describe('a send its dead sender never recorded', () => {
  let loop: ReplyLoop | undefined;
  afterEach(async () => {
    await loop?.close();
    loop = undefined;
  });

  /** Starts an echo conversation, whose greeting waits in the outbox, claimed by nobody. */
  async function greetingQueued(store: Store, phone: string): Promise<void> {
    await loop!.start(phone, 'echo');
    await waitFor(async () => (await store.pendingOutbound({ location, phone })).length === 1);
  }

  /** Claims the phone's outbox as a sender that is about to die would. */
  async function claimAsDeadSender(store: Store, phone: string) {
    const claim = await store.claim('outbox', store.partitionOf(phone), deadLeaseMs, Date.now());
    expect(claim).toMatchObject({ phone, view: { message: { body: greeting } } });
    return claim!;
  }

  it('is found by its status and recorded, never sent again', async () => {
    loop = await startReplyLoop({
      registry,
      roles: { web: true, worker: true, sender: false },
      inDoubtGraceMs: 60_000,
    });
    const { store } = loop;
    const phone = '33612345001';
    await greetingQueued(store, phone);
    await claimAsDeadSender(store, phone);
    // The service accepts the send; the sender dies before it records the sms id.
    const { id } = await createClientGateway(loop.app.clients).send(location, {
      to: phone,
      body: greeting,
    });
    // The service's `sent` status reaches the webhook: the sms is known, unrecorded.
    await waitFor(async () => (await store.getMessage(phone, id)) !== null);
    expect((await store.getMessage(phone, id))?.outboxId).toBeUndefined();

    await loop.startInstance({ web: false, worker: false, sender: true, scheduler: false });
    await waitFor(async () => (await store.pendingOutbound({ location, phone })).length === 0, {
      timeout: 10_000,
    });
    expect(await loop.bodiesTo(phone)).toEqual([greeting]);
    expect(await store.getMessage(phone, id)).toMatchObject({ outboxId: expect.any(String) });
    // The status that waited for the record reached the bot, with the run that sent the sms.
    await waitFor(async () => {
      const record = await store.getConversation({ location, phone });
      const context = (record?.snapshot as { context?: { statuses?: string[] } })?.context;
      return (context?.statuses?.length ?? 0) > 0;
    });
  });

  it('is sent once the grace has passed when the dead sender never sent it', async () => {
    loop = await startReplyLoop({
      registry,
      roles: { web: true, worker: true, sender: false },
      inDoubtGraceMs: 1_000,
    });
    const { store } = loop;
    const phone = '33612345002';
    await greetingQueued(store, phone);
    const claimedAt = Date.now();
    await claimAsDeadSender(store, phone);

    await loop.startInstance({ web: false, worker: false, sender: true, scheduler: false });
    await loop.waitForBodies(phone, 1, 10_000);
    // Taken over after the dead lease, then held back for the grace: never sooner.
    const [sms] = (await (
      await fetch(`${loop.emulator.url}/_emulator/messages?to=${phone}`)
    ).json()) as Array<{ createdAt: string }>;
    expect(Date.parse(sms!.createdAt) - claimedAt).toBeGreaterThanOrEqual(deadLeaseMs + 1_000);
    await waitFor(async () => (await store.pendingOutbound({ location, phone })).length === 0);
    expect(await loop.bodiesTo(phone)).toEqual([greeting]);
  });

  it('is sent again when no status tells of it (no sms.status webhook): the duplicate the grace avoids', async () => {
    loop = await startReplyLoop({
      registry,
      roles: { web: true, worker: true, sender: false },
      inDoubtGraceMs: 1_000,
      webhook: false,
    });
    const { store } = loop;
    const phone = '33612345003';
    await greetingQueued(store, phone);
    await claimAsDeadSender(store, phone);
    await createClientGateway(loop.app.clients).send(location, { to: phone, body: greeting });

    await loop.startInstance({ web: false, worker: false, sender: true, scheduler: false });
    expect(await loop.waitForBodies(phone, 2, 10_000)).toEqual([greeting, greeting]);
  });
});
