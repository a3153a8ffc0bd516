import type { IngestItem } from './store.ts';

/** The items of one notification by partition, each group in array order (Node 20 has no `Map.groupBy`). */
export function groupByPartition(
  items: IngestItem[],
  partitionOf: (phone: string) => number,
): Map<number, IngestItem[]> {
  const groups = new Map<number, IngestItem[]>();
  for (const item of items) {
    const partition = partitionOf(item.event.phone);
    const group = groups.get(partition);
    if (group) group.push(item);
    else groups.set(partition, [item]);
  }
  return groups;
}
