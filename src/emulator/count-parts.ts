import { SegmentedMessage } from 'sms-segments-calculator';

/**
 * Characters of the GSM-7 basic set that are plain ASCII: one septet each, one grapheme each.
 * Left out: `\r` (with `\n` it makes one two-character grapheme, which the calculator counts as
 * UCS-2), the extension characters `[\]^{|}~` (two septets) and the backtick (not GSM-7).
 */
const plainGsm = /^[\n !"#$%&'()*+,\-./0-9:;<=>?@A-Z_a-z]*$/;

/**
 * The number of SMS segments of `body`, as sms-segments-calculator counts them. A body of plain
 * ASCII GSM-7 characters, which most bot answers are, is counted directly: 160 septets fit one
 * segment, and a longer body takes segments of 153 (each carries a 6-byte header). Every other
 * body goes through the calculator, whose grapheme splitting was the largest cost of the
 * emulator's `POST /sms` (test/unit/emulator/count-parts.test.ts compares the two).
 */
export function countParts(body: string): number {
  if (plainGsm.test(body)) return body.length <= 160 ? 1 : Math.ceil(body.length / 153);
  return new SegmentedMessage(body).segmentsCount;
}
