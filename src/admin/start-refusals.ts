import type { Logger } from '../observability/logger.ts';
import { maskPhone } from '../observability/mask-phone.ts';
import type { StartAnswer } from './start-with-policy.ts';

/** Who a start was for: what its refusals name (the phone masked). */
interface Refused {
  location: string;
  bot: string;
  phone: string;
}

/** 409 `opted_out`, logged (info, phone masked): the phone is sent nothing until it texts START. */
export function optedOutAnswer(logger: Logger, start: Refused): StartAnswer {
  const masked = maskPhone(start.phone);
  logger.info(
    { location: start.location, bot: start.bot, conversation: masked },
    'admin start refused: the phone opted out',
  );
  return {
    status: 409,
    body: {
      error: 'opted_out',
      message: `phone ${masked} opted out (STOP): nothing is sent to it until the person texts START`,
    },
  };
}

/** 409 naming the bot the phone is busy with, when the started bot's startPolicy is skip. */
export function busyAnswer(start: Refused, activeBot: string): StartAnswer {
  return {
    status: 409,
    body: {
      error: `phone ${maskPhone(start.phone)} has an active conversation with bot '${activeBot}' (bot '${start.bot}' has startPolicy 'skip')`,
      activeBot,
    },
  };
}
