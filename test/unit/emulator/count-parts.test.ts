import { SegmentedMessage } from 'sms-segments-calculator';
import { describe, expect, it } from 'vitest';
import { countParts } from '../../../src/emulator/count-parts.ts';

const plain =
  '\n !"#$%&\'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz';
// Characters the direct count must leave to the calculator, or count as it does.
const others = ['\r', '\r\n', '[', '€', '`', '~', 'é', 'ç', '😀', 'e\u0301', '\u00a0'];

function random(seed: number) {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

describe('countParts', () => {
  it('counts plain GSM-7 bodies of every length up to 1,000 as the calculator does', () => {
    const next = random(20261124);
    for (let length = 1; length <= 1_000; length++) {
      const body = Array.from({ length }, () => plain[Math.floor(next() * plain.length)]).join('');
      expect(countParts(body), `length ${length}`).toBe(new SegmentedMessage(body).segmentsCount);
    }
  });

  it('counts bodies with extension, accented, CR and non-GSM characters as the calculator does', () => {
    const next = random(7);
    for (let i = 0; i < 2_000; i++) {
      const length = 1 + Math.floor(next() * 400);
      const chars = Array.from({ length }, () =>
        next() < 0.97
          ? plain[Math.floor(next() * plain.length)]
          : others[Math.floor(next() * others.length)],
      );
      const body = chars.join('');
      expect(countParts(body), JSON.stringify(body)).toBe(new SegmentedMessage(body).segmentsCount);
    }
  });

  it('counts each character outside the plain set at a segment boundary as the calculator does', () => {
    for (const other of [...others, '[', '\\', ']', '^', '{', '|', '}', '€', '£', 'ñ']) {
      for (const length of [159, 160, 305, 306]) {
        const body = 'a'.repeat(length) + other;
        expect(countParts(body), JSON.stringify(other)).toBe(
          new SegmentedMessage(body).segmentsCount,
        );
      }
    }
  });

  it('puts 160 plain characters in one segment and 161 in two', () => {
    expect(countParts('a'.repeat(160))).toBe(1);
    expect(countParts('a'.repeat(161))).toBe(2);
    expect(countParts('a'.repeat(306))).toBe(2);
    expect(countParts('a'.repeat(307))).toBe(3);
  });
});
