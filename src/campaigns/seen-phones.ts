/**
 * The phone numbers a file has named so far, each with the line it first came on: an open
 * addressing table over typed arrays, about 12 bytes a slot, so a million numbers take 24 MiB
 * where a `Set` of strings or numbers takes two to three times that and keeps the GC busy. A
 * number is its digits in the service's form (at most 15 digits: exact as a double).
 *
 * @example
 * const seen = new SeenPhones(1_000_000);
 * seen.firstLine('33612345678', 2); // undefined: first time
 * seen.firstLine('33612345678', 9); // 2
 */
export class SeenPhones {
  private keys: Float64Array;
  private lines: Uint32Array;
  private count = 0;

  /**
   * `expected`: how many numbers to make room for at once; a table that grows holds the old
   * and the new arrays for a moment (36 MiB at the last growth before a million, 24 after).
   */
  constructor(expected = 512) {
    let slots = 1024;
    while (slots < expected * 2) slots *= 2;
    this.keys = new Float64Array(slots);
    this.lines = new Uint32Array(slots);
  }

  /** How many numbers it holds. */
  get size(): number {
    return this.count;
  }

  /** The line `digits` came on first, or undefined after recording `line` as that line. */
  firstLine(digits: string, line: number): number | undefined {
    const key = Number(digits);
    const slot = this.slotOf(key);
    if (this.keys[slot] === key) return this.lines[slot];
    this.keys[slot] = key;
    this.lines[slot] = line;
    this.count++;
    // Kept at most half full, so that a probe seldom goes past a few slots.
    if (this.count * 2 > this.keys.length) this.grow();
    return undefined;
  }

  /** The slot holding `key`, or the empty one (0: no number is 0) where it would go. */
  private slotOf(key: number): number {
    const mask = this.keys.length - 1;
    let slot = hash(key) & mask;
    while (this.keys[slot] !== 0 && this.keys[slot] !== key) slot = (slot + 1) & mask;
    return slot;
  }

  private grow(): void {
    const { keys, lines } = this;
    this.keys = new Float64Array(keys.length * 2);
    this.lines = new Uint32Array(keys.length * 2);
    for (let i = 0; i < keys.length; i++) {
      if (keys[i] === 0) continue;
      const slot = this.slotOf(keys[i]!);
      this.keys[slot] = keys[i]!;
      this.lines[slot] = lines[i]!;
    }
  }
}

/** Mixes both 32-bit halves of the number (murmur3's finaliser). */
function hash(key: number): number {
  let h = (key % 4_294_967_296) ^ Math.imul(Math.floor(key / 4_294_967_296), 0x9e3779b1);
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}
