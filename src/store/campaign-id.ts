import type { CampaignRef } from './campaign-records.ts';
import { fnv1a } from './partition-of.ts';

const part = /^[A-Za-z0-9_-]+$/;

/**
 * A campaign's id, `<location>:<name>`: the member of the due index and the middle of its keys.
 * Both parts are checked: a `:` or a `{` in either would make two campaigns' keys collide (or
 * move their hash slot).
 */
export function campaignId(ref: CampaignRef): string {
  if (!part.test(ref.location) || !part.test(ref.name)) {
    throw new TypeError(
      `invalid campaign '${ref.location}:${ref.name}': location and name are letters, digits, '_' or '-'`,
    );
  }
  return `${ref.location}:${ref.name}`;
}

/** The inverse of `campaignId`. */
export function parseCampaignId(id: string): CampaignRef {
  const colon = id.indexOf(':');
  return { location: id.slice(0, colon), name: id.slice(colon + 1) };
}

/**
 * The chunk of a row among a campaign's `chunks` in its partition: the row's hash past the part
 * that chose the partition, so the rows of one partition spread evenly over its chunks.
 */
export function chunkOf(row: string, partitions: number, chunks: number): number {
  return Math.floor(fnv1a(row) / partitions) % chunks;
}

/**
 * How many chunks per partition a campaign of about `rows` recipients gets: about 64 rows per
 * chunk, so each chunk stays a small hash (Redis's compact encoding up to 128 fields).
 */
export function chunksFor(rows: number, partitions: number): number {
  return Math.max(1, Math.ceil(rows / partitions / 64));
}
