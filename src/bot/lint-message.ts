import { createRequire } from 'node:module';
import type { SegmentedMessage as Segmented } from 'sms-segments-calculator';
import { gsmReplacement } from './gsm-replacement.ts';

// Loaded at the first lint: a bot file imports this module through `replyflow`, and a process
// that loads bots without linting them (a campaign import, a worker) does not pay its 4 MiB.
const load = createRequire(import.meta.url);
let segmented: typeof Segmented | undefined;
function segmentedMessage(text: string): Segmented {
  segmented ??= (load('sms-segments-calculator') as typeof import('sms-segments-calculator'))
    .SegmentedMessage;
  return new segmented(text);
}

/** Past this many parts a message gets a warning: each part is billed. */
export const maxPartsWithoutWarning = 2;

/** What `lintMessage` finds about one SMS text. */
export interface MessageLint {
  /** `GSM-7` (160 characters in one part, 153 a part beyond) or `UCS-2` (70, then 67). */
  encoding: 'GSM-7' | 'UCS-2';
  /** How many parts (segments) the message is sent and billed as. */
  segments: number;
  /** Characters as a person counts them (an emoji is one). */
  characters: number;
  /**
   * Code units counted against the part size: GSM-7 septets (`^{}\[~]|€` take two) or UCS-2
   * 16-bit units (an emoji takes two).
   */
  units: number;
  /** Why the message costs more than it could; empty when nothing can be done better. */
  warnings: string[];
}

/**
 * Says how an SMS text will be encoded and into how many parts it is split (the rules of
 * sms-segments-calculator), and warns about what makes it expensive: each character that forces
 * UCS-2, with the GSM-7 replacement when one exists, and a text of more than 2 parts.
 *
 * @example
 * lintMessage('C’est noté, à bientôt !');
 * // { encoding: 'UCS-2', segments: 1, characters: 23, units: 23, warnings: [
 * //   "'’' (U+2019) forces UCS-2 (70 characters a part instead of 160): write ' instead",
 * //   "'ô' (U+00F4) forces UCS-2 (70 characters a part instead of 160): write o instead" ] }
 */
export function lintMessage(text: string): MessageLint {
  const message = segmentedMessage(text);
  const encoding = message.encodingName;
  const warnings: string[] = [];
  if (encoding === 'UCS-2') {
    for (const character of new Set(message.getNonGsmCharacters())) {
      warnings.push(ucs2Warning(character));
    }
  }
  const segments = message.segmentsCount;
  if (segments > maxPartsWithoutWarning) {
    warnings.push(
      `${segments} parts (${encoding}): shorten it to ${maxPartsWithoutWarning} parts or fewer, each part is billed`,
    );
  }
  return {
    encoding,
    segments,
    characters: message.graphemes.length,
    units: message.messageSize / (encoding === 'GSM-7' ? 7 : 16),
    warnings,
  };
}

/**
 * The encoding and parts of a text about to be sent, for the message record and the log.
 *
 * @example
 * describeEncoding('Bonjour'); // { encoding: 'GSM-7', segments: 1 }
 */
export function describeEncoding(text: string): Pick<MessageLint, 'encoding' | 'segments'> {
  // The sender calls this for every message: most are plain GSM-7, counted here in a few µs
  // (the library takes hundreds); the others, rarer, go through the library.
  if (gsmBasic.test(text)) {
    return { encoding: 'GSM-7', segments: text.length <= 160 ? 1 : Math.ceil(text.length / 153) };
  }
  const message = segmentedMessage(text);
  return { encoding: message.encodingName, segments: message.segmentsCount };
}

/** Texts of the GSM 03.38 basic character set only (no escape, no extension character). */
const gsmBasic =
  /^[@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&'()*+,\-./0-9:;<=>?¡A-ZÄÖÑÜ§¿a-zäöñüà]*$/;

function ucs2Warning(character: string): string {
  const code = [...character]
    .map((c) => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`)
    .join(' ');
  const replacement = gsmReplacement(character);
  const usable =
    replacement !== undefined && segmentedMessage(replacement).encodingName === 'GSM-7';
  const shown = character.trim() === '' ? code : `'${character}' (${code})`;
  const advice = !usable
    ? 'no GSM-7 equivalent, remove it to send in GSM-7'
    : replacement === ''
      ? 'remove it'
      : `write ${replacement === ' ' ? 'a plain space' : replacement} instead`;
  return `${shown} forces UCS-2 (70 characters a part instead of 160): ${advice}`;
}
