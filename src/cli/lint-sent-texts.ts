import { readFile } from 'node:fs/promises';
import { relative, sep } from 'node:path';
import type { BotRegistry } from '../bot/bot-registry.ts';
import { exampleInputAt } from '../bot/define-bot.ts';
import type { BotTextLint } from '../bot/lint-bot-texts.ts';
import { lintMessage } from '../bot/lint-message.ts';
import { createTestHarness } from '../testing/create-test-harness.ts';
import { findTranscripts } from '../testing/find-transcripts.ts';
import { parseTranscript, type Transcript } from '../testing/parse-transcript.ts';
import { playTranscriptFile } from '../testing/run-transcript.ts';
import { type SentText, sentTexts } from '../testing/sent-texts.ts';

/** What ran to find the texts, and the texts found that the static reading had not linted. */
export interface SentTextsLint {
  rows: BotTextLint[];
  transcripts: number;
  examples: number;
}

/**
 * Lints the texts the bots actually send, which a reading of their source cannot see when they
 * are computed (`reply(({ context }) => …)`): every transcript under `./transcripts` and the bots
 * folder is played on the test harness, and each bot none of them ran is started once with its
 * `exampleInput`. Each text sent is linted once per bot, unless it is one of `known` (the static
 * texts, linted already); `where` says which transcript or example sent it first.
 *
 * @example
 * const sent = await lintSentTexts(registry, './bots', lintBotTexts(registry.bots.values()));
 * formatLintTable(sent.rows); // the computed texts, as sent, with their warnings
 */
export async function lintSentTexts(
  registry: BotRegistry,
  botsDir: string,
  known: readonly BotTextLint[],
): Promise<SentTextsLint> {
  const bots = [...registry.bots.values()];
  const seen = new Set(known.map((row) => `${row.bot}\u0000${row.text}`));
  const botsSeen = new Set<string>();
  const rows: BotTextLint[] = [];
  const take = (texts: SentText[], source: string) => {
    for (const { bot, body } of texts) {
      if (bot === undefined) continue;
      botsSeen.add(bot);
      const key = `${bot}\u0000${body}`;
      if (seen.has(key)) continue;
      seen.add(key);
      rows.push({ bot, where: `sent (${source})`, text: body, lint: lintMessage(body) });
    }
  };
  const roots = ['transcripts', relative(process.cwd(), botsDir) || '.'];
  const files: string[] = [];
  for (const file of await findTranscripts(roots, { required: false })) {
    if (await runsTheseBots(file, registry)) files.push(file);
  }
  // A few at a time: each waits mostly on its own harness. Taken in file order, so the first
  // transcript to send a text is the one named.
  const sentBy = new Map<string, SentText[]>();
  let next = 0;
  const worker = async () => {
    for (let file = files[next++]; file !== undefined; file = files[next++]) {
      const name = file;
      await playTranscriptFile(name, { bots, onSent: (texts) => sentBy.set(name, texts) });
    }
  };
  await Promise.all(Array.from({ length: 4 }, worker));
  for (const file of files) take(sentBy.get(file) ?? [], file);
  const untried = bots.filter((bot) => !botsSeen.has(bot.id) && bot.exampleInput !== undefined);
  if (untried.length > 0) {
    const harness = await createTestHarness({ bots });
    try {
      for (const [index, bot] of untried.entries()) {
        // A start the bot refuses sends nothing: its texts stay unseen, as without an example.
        await harness
          .start(
            bot,
            `+336${String(10_000_000 + index).slice(-8)}`,
            exampleInputAt(bot, new Date(harness.clock.now())),
          )
          .catch(() => undefined);
      }
      const texts = await sentTexts(harness);
      for (const bot of untried) {
        take(
          texts.filter((text) => text.bot === bot.id),
          `${bot.id}'s exampleInput`,
        );
      }
    } finally {
      await harness.close();
    }
  }
  return { rows, transcripts: files.length, examples: untried.length };
}

/**
 * Whether a transcript is about these bots: each bot it starts is loaded, and it starts one, or
 * (a keyword's transcript) it sits in a folder named after one. One that cannot be read is left
 * to `replyflow test` to report.
 */
async function runsTheseBots(file: string, registry: BotRegistry): Promise<boolean> {
  let transcript: Transcript;
  try {
    transcript = parseTranscript(await readFile(file, 'utf8'), file);
  } catch {
    return false;
  }
  const started = transcript.steps.flatMap((step) => (step.kind === 'start' ? [step.bot] : []));
  if (started.length > 0) return started.every((bot) => registry.bots.has(bot));
  return file.split(sep).some((segment) => registry.bots.has(segment));
}
