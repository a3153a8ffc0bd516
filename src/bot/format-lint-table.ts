import type { BotTextLint } from './lint-bot-texts.ts';

const textWidth = 40;

/**
 * The table `replyflow bots lint` prints and the app logs when bots load: one line per `reply`
 * text (bot, where, encoding, parts, characters, the start of the text), then each warning on
 * its own line under the text it is about.
 *
 * @example
 * formatLintTable(lintBotTexts(registry.bots.values()));
 * // bot          where                   encoding  parts  chars  text
 * // appointment  appointment.asking entry  UCS-2     1      52     "Merci, c’est noté…"
 * //   ! '’' (U+2019) forces UCS-2 (70 characters a part instead of 160): write ' instead
 */
export function formatLintTable(rows: readonly BotTextLint[]): string {
  if (rows.length === 0) return '(no reply texts)';
  const header = ['bot', 'where', 'encoding', 'parts', 'chars', 'text'];
  const lines = rows.map((row) => [
    row.bot,
    row.where,
    row.lint?.encoding ?? '-',
    row.lint ? String(row.lint.segments) : '-',
    row.lint ? String(row.lint.characters) : '-',
    row.text === null ? '(computed: linted when sent)' : preview(row.text),
  ]);
  const widths = header.map((_, i) => Math.max(...[header, ...lines].map((l) => l[i]!.length)));
  const render = (cells: string[]) =>
    cells
      .map((cell, i) => cell.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  const out = [render(header)];
  rows.forEach((row, i) => {
    out.push(render(lines[i]!));
    for (const warning of row.lint?.warnings ?? []) out.push(`  ! ${warning}`);
  });
  return out.join('\n');
}

function preview(text: string): string {
  const flat = text.replace(/\s+/g, ' ');
  const characters = [...flat];
  const shown =
    characters.length > textWidth ? `${characters.slice(0, textWidth - 1).join('')}…` : flat;
  return JSON.stringify(shown);
}
