import type { TestHarness } from './test-harness.ts';
import { OPENING_SMS } from './test-phone.ts';

/** An SMS a bot sent while a transcript or an example start ran on a harness. */
export interface SentText {
  /** The bot of the conversation the SMS went to (its phone's last one). */
  bot: string | undefined;
  body: string;
}

/**
 * Every SMS the bots sent on `harness` so far (the harness's opening SMS left out), each with
 * the bot whose conversation it went to: what `replyflow bots lint` lints of the texts a bot
 * computes, which no reading of its source can see.
 *
 * @example
 * const texts = await sentTexts(harness); // [{ bot: 'survey', body: 'Merci Ana…' }, …]
 */
export async function sentTexts(harness: TestHarness): Promise<SentText[]> {
  const res = await fetch(
    `${harness.emulatorUrl}/_emulator/messages?location=${encodeURIComponent(harness.location)}`,
  );
  if (!res.ok) throw new Error(`the emulator's messages answered ${res.status}`);
  const messages = (await res.json()) as Array<{ to: string; body: string }>;
  const bots = new Map<string, string | undefined>();
  const sent: SentText[] = [];
  for (const { to, body } of messages) {
    if (body === OPENING_SMS) continue;
    if (!bots.has(to)) {
      const record = await harness.store.getConversation({ location: harness.location, phone: to });
      bots.set(to, record?.botId);
    }
    sent.push({ bot: bots.get(to), body });
  }
  return sent;
}
