/**
 * The partition of a phone number: FNV-1a of its digits, modulo the partition count. Stable
 * across processes and releases; changing it would strand data, so it never changes.
 */
export function partitionOf(phone: string, partitions: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < phone.length; i++) {
    hash ^= phone.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % partitions;
}
