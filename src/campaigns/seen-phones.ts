/**
 * The phone numbers a file has named so far, each with the line it first came on: an open
 * addressing table over typed arrays, 12 bytes a slot and at most three slots in four used, so a
 * million numbers take 16 MiB when the table is made for them (`expected`), outside the JS heap,
 * where a `Map` of them to their lines takes 59 MiB of heap (a `Set` of numbers alone, 35)
 * that every full collection walks. A number is its
 * digits in the service's form (at most 15 digits: exact as a double).
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
  /** How many numbers the table takes before it grows. */
  private limit: number;

  /**
   * `expected`: how many numbers to make room for at once. A table that has to grow holds its
   * old and new arrays for a moment, three times the old one's size.
   */
  constructor(expected = 512) {
    const slots = Math.max(minSlots, Math.ceil(Math.max(0, expected) / maxLoad) + 1);
    this.keys = new Float64Array(slots);
    this.lines = new Uint32Array(slots);
    this.limit = Math.floor(slots * maxLoad);
  }

  /** How many numbers it holds. */
  get size(): number {
    return this.count;
  }

  /** Bytes its arrays take. */
  get bytes(): number {
    return this.keys.byteLength + this.lines.byteLength;
  }

  /** The line `digits` came on first, or undefined after recording `line` as that line. */
  firstLine(digits: string, line: number): number | undefined {
    const key = Number(digits);
    const slot = this.slotOf(key);
    if (this.keys[slot] === key) return this.lines[slot];
    this.keys[slot] = key;
    this.lines[slot] = line;
    this.count++;
    if (this.count > this.limit) this.grow();
    return undefined;
  }

  /** The slot holding `key`, or the empty one (0: no number is 0) where it would go. */
  private slotOf(key: number): number {
    const { keys } = this;
    const slots = keys.length;
    // The hash scaled to the table (any size, not only powers of two): always below `slots`.
    let slot = Math.floor((hash(key) / 4_294_967_296) * slots);
    while (keys[slot] !== 0 && keys[slot] !== key) slot = slot + 1 === slots ? 0 : slot + 1;
    return slot;
  }

  private grow(): void {
    const { keys, lines } = this;
    const slots = keys.length * 2;
    this.keys = new Float64Array(slots);
    this.lines = new Uint32Array(slots);
    this.limit = Math.floor(slots * maxLoad);
    for (let i = 0; i < keys.length; i++) {
      if (keys[i] === 0) continue;
      const slot = this.slotOf(keys[i]!);
      this.keys[slot] = keys[i]!;
      this.lines[slot] = lines[i]!;
    }
  }
}

/**
 * The most slots in use: a linear probe seldom goes past a few slots below it (about 2.5 for a
 * number seen, 8.5 for a new one at the fullest), and the table is a third smaller than at half.
 */
const maxLoad = 0.75;

const minSlots = 1024;

/** Mixes both 32-bit halves of the number (murmur3's finaliser): 32 bits. */
function hash(key: number): number {
  let h = (key % 4_294_967_296) ^ Math.imul(Math.floor(key / 4_294_967_296), 0x9e3779b1);
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}
