/**
 * FNV-1a of a text, as an unsigned 32-bit number. Stable across processes and releases: the
 * partitions and the campaign chunks are made of it, and changing it would strand data.
 */
export function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/**
 * The partition of a phone number: FNV-1a of its digits, modulo the partition count. Stable
 * across processes and releases; changing it would strand data, so it never changes.
 */
export function partitionOf(phone: string, partitions: number): number {
  return fnv1a(phone) % partitions;
}
