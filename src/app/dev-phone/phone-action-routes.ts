import express, { type Request, type Response, Router } from 'express';
import type { CountryCode } from 'libphonenumber-js';
import { z } from 'zod';
import { exampleInputAt } from '../../bot/define-bot.ts';
import { checkStartInput } from '../../conversation/check-start-input.ts';
import { startConversation } from '../../conversation/start-conversation.ts';
import { EmulatorApiError } from '../../emulator/emulator-api-error.ts';
import { nextFailureReasons } from '../../emulator/next-failures.ts';
import { simulateReply } from '../../emulator/simulate-reply.ts';
import { maskPhone } from '../../observability/mask-phone.ts';
import { normalizePhone } from '../../provider/normalize-phone.ts';
import type { DevBots, DevRouterOptions } from '../create-dev-router.ts';
import { toConversationView } from './conversation-view.ts';
import type { DevPhoneJournal } from './dev-phone-journal.ts';
import { endConversationNow } from './end-conversation-now.ts';
import { parse } from './parse-body.ts';
import { formatPhone, toSmsView } from './sms-view.ts';
import type { ConversationWatch } from './watch-conversations.ts';

const phoneSchema = z.object({ phone: z.string().min(1, 'type a phone number') });
const startSchema = z.object({
  bot: z.string().min(1),
  phone: z.string().min(1),
  // Checked with the bot's schema once the bot is known (checkStartInput), as the admin API
  // does; absent, the bot's `exampleInput`.
  input: z.unknown().optional(),
});
const bodySchema = z.object({ body: z.string().trim().min(1, 'type a message').max(1600) });
const broadcastSchema = z.object({ body: z.string().trim().min(1).max(1600).optional() });
const failureSchema = z.object({ reason: z.enum(nextFailureReasons) });

type Deps = DevRouterOptions & {
  bots: DevBots;
  journal: DevPhoneJournal;
  watch: ConversationWatch;
};

/** The dev phone's actions: what a person, the short code or the developer can do to a number. */
export function phoneActionRoutes(deps: Deps): Router {
  const { store, location, emulator, journal, watch, clock } = deps;
  // The configuration checked it is a country code (`config.ts`).
  const country = (deps.defaultCountry ?? 'FR') as CountryCode;
  const router = Router();
  router.use('/dev', express.json());

  /** The digits of a phone as people write it, or a 400 saying why not. */
  const toDigits = (input: string, res: Response): string | undefined => {
    try {
      return normalizePhone(input, { defaultCountry: country });
    } catch (error) {
      res.status(400).json({ error: (error as Error).message });
      return undefined;
    }
  };
  const phoneParam = (req: Request, res: Response) => toDigits(String(req.params.phone), res);
  const needEmulator = (res: Response): boolean => {
    if (emulator) return true;
    res.status(409).json({
      error:
        'the dev phone chats through the built-in emulator, and a real provider is configured: unset REPLYFLOW_PROVIDER_URL (and the key pair) to use it',
    });
    return false;
  };
  const note = (phone: string, text: string, tone: 'info' | 'warn' | 'error' = 'info') =>
    journal.append({ kind: 'notice', phone, at: clock.now(), text, tone });

  /** A message the service would not take: kept in the thread, marked, so it does not vanish. */
  const failedReply = (phone: string, body: string, error: string) => {
    const at = clock.now();
    watch.serially(phone, () => journal.append({ kind: 'reply', phone, at, body, error }));
  };

  router.post('/dev/phones', (req, res) => {
    const parsed = parse(phoneSchema, req.body, res);
    const phone = parsed && toDigits(parsed.phone, res);
    if (!phone) return;
    if (journal.open(phone)) journal.publish('phones', { phone, display: formatPhone(phone) });
    res.status(201).json({ phone, display: formatPhone(phone) });
  });

  router.get('/dev/phones/:phone', async (req, res) => {
    const phone = phoneParam(req, res);
    if (!phone) return;
    if (journal.open(phone)) journal.publish('phones', { phone, display: formatPhone(phone) });
    // Frames up to `seq` are in this answer; the page applies only later ones.
    const seq = journal.seq;
    const entries = journal.thread(phone);
    const messages = emulator?.messages.list({ to: phone, location }) ?? [];
    res.json({
      seq,
      phone,
      display: formatPhone(phone),
      entries,
      sms: Object.fromEntries(messages.map((sms) => [sms.id, toSmsView(sms)])),
      conversation: await watch.read(phone),
      armed: emulator?.nextFailures.list().find((a) => a.phone === phone)?.reasons ?? [],
    });
  });

  router.post('/dev/conversations', async (req, res) => {
    const parsed = parse(startSchema, req.body, res);
    const phone = parsed && toDigits(parsed.phone, res);
    if (!parsed || !phone) return;
    const registry = deps.bots.registry();
    const bot = registry.bots.get(parsed.bot);
    if (!bot) {
      res
        .status(404)
        .json({ error: `no bot '${parsed.bot}'; loaded: ${[...registry.bots.keys()].join(', ')}` });
      return;
    }
    // No input given: the bot's example input by the dev clock, as the page's form is filled.
    const checked = checkStartInput(
      bot,
      parsed.input === undefined ? exampleInputAt(bot, new Date(clock.now())) : parsed.input,
    );
    if (!checked.ok) {
      res.status(400).json({ error: checked.error, field: checked.field });
      return;
    }
    const active = await store.getConversation({ location, phone });
    if (active?.status === 'active') {
      res.status(409).json({
        error: `${maskPhone(phone)} already talks with '${active.botId}': answer it, or reset the number to start again`,
      });
      return;
    }
    if (await store.isSuppressed({ location, phone })) {
      res.status(409).json({
        error: `${maskPhone(phone)} has opted out (STOP): nothing but the confirmation reaches it until it texts START`,
      });
      return;
    }
    if (journal.open(phone)) journal.publish('phones', { phone, display: formatPhone(phone) });
    watch.remember(phone, active ? toConversationView(active, deps.bots.registry()) : null);
    const id = await startConversation(store, {
      location,
      phone,
      botId: parsed.bot,
      input: checked.input,
      now: clock.now(),
    });
    watch.poke();
    res.status(202).json({ id, phone });
  });

  router.post('/dev/phones/:phone/messages', (req, res) => {
    const phone = phoneParam(req, res);
    const parsed = phone && parse(bodySchema, req.body, res);
    if (!phone || !parsed || !needEmulator(res)) return;
    try {
      // The emulator's `reply` event puts the message in the thread, numbered before the
      // webhook that makes the bot answer it.
      const result = simulateReply(
        { ...emulator!, shortCode: emulator!.config.shortCode },
        { from: phone, body: parsed.body, location },
      );
      if (!result.notified) failedReply(phone, parsed.body, result.reason);
      res.status(result.notified ? 201 : 200).json(result);
    } catch (error) {
      if (!(error instanceof EmulatorApiError)) throw error;
      failedReply(phone, parsed.body, error.message);
      res.status(error.status).json({ error: error.message });
    }
  });

  router.post('/dev/phones/:phone/broadcast', (req, res) => {
    const phone = phoneParam(req, res);
    const parsed = phone && parse(broadcastSchema, req.body ?? {}, res);
    if (!phone || !parsed || !needEmulator(res)) return;
    const keywords = [...deps.bots.registry().byKeyword.keys()].map((k) => k.toUpperCase());
    const body =
      parsed.body ??
      `News from us: reply ${keywords.slice(0, 3).join(' or ') || 'to this message'} to start.`;
    if (journal.open(phone)) journal.publish('phones', { phone, display: formatPhone(phone) });
    const sms = emulator!.lifecycle.accept(location, {
      from: '',
      to: phone,
      body,
      shortenUrls: false,
      isTransactional: false,
    });
    res.status(201).json(toSmsView(sms));
  });

  router.post('/dev/phones/:phone/next-failure', (req, res) => {
    const phone = phoneParam(req, res);
    const parsed = phone && parse(failureSchema, req.body, res);
    if (!phone || !parsed || !needEmulator(res)) return;
    emulator!.nextFailures.arm(phone, parsed.reason);
    note(phone, `the next SMS to this number will fail: ${parsed.reason}`, 'warn');
    res.status(201).json({
      phone,
      armed: emulator!.nextFailures.list().find((a) => a.phone === phone)?.reasons ?? [],
    });
  });

  router.post('/dev/phones/:phone/reset', async (req, res) => {
    const phone = phoneParam(req, res);
    if (!phone) return;
    emulator?.nextFailures.clear(phone);
    emulator?.outcomes.delete(phone);
    const ended = await endConversationNow(store, { location, phone }, clock.now());
    journal.clear(phone);
    note(phone, ended.note, ended.ended ? 'info' : 'warn');
    watch.poke();
    res.json({ phone, ...ended });
  });

  return router;
}
