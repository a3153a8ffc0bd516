import { styleText } from 'node:util';
import { SegmentedMessage } from 'sms-segments-calculator';
import type { StoredSms } from '../emulator/index.ts';

type Style = Parameters<typeof styleText>[0];

/**
 * What `replyflow chat` writes: each SMS with its parts, encoding, status and price, the
 * person's lines, and the state after each step. Coloured only when asked (a terminal without
 * NO_COLOR); the words carry the meaning, so a pipe loses nothing.
 */
export function createChatPrinter(out: NodeJS.WritableStream, color: boolean) {
  const paint = (style: Style, text: string) => (color ? styleText(style, text) : text);
  const write = (text: string) => out.write(`${text}\n`);
  return {
    banner(bot: string, phone: string) {
      write(paint('bold', `replyflow chat · bot ${bot} · +${phone}`));
      write(
        paint(
          'dim',
          'Emulated: nothing is really sent. Type a reply, or /advance 24h, /state, /context, /fail EXPIRED, /stop, /help, /quit.',
        ),
      );
    },
    sms(sms: StoredSms) {
      const segmented = new SegmentedMessage(sms.body);
      write(`${paint(['bold', 'cyan'], 'bot ▸')} ${sms.body}`);
      write(
        paint(
          'dim',
          `      ${sms.parts} part${sms.parts === 1 ? '' : 's'} · ${segmented.encodingName} · ${sms.status}`,
        ),
      );
    },
    status(sms: StoredSms) {
      const reason = sms.statusReason ? ` (${sms.statusReason})` : '';
      const price = sms.price > 0 ? ` · price ${sms.price}` : '';
      const style: Style = sms.status === 'errored' ? 'red' : 'dim';
      write(paint(style, `      ↳ ${sms.status}${reason}${price}`));
    },
    you(body: string) {
      write(`${paint(['bold', 'green'], 'you ▸')} ${body}`);
    },
    state(bot: string, from: string, to: string) {
      const moved = from === to ? to : `${from} → ${to}`;
      write(paint('yellow', `state: ${moved}`) + paint('dim', ` (${bot})`));
    },
    info(text: string) {
      write(paint('dim', text));
    },
    error(text: string) {
      write(paint('red', text));
    },
    json(label: string, value: unknown) {
      write(`${paint('yellow', `${label}:`)} ${JSON.stringify(value, null, 2)}`);
    },
  };
}

export type ChatPrinter = ReturnType<typeof createChatPrinter>;
