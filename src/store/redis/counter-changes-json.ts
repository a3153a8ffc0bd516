import { storableJson } from '../storable-json.ts';
import type { CounterChange } from '../store.ts';

/** Counter changes as lib/change-counters.lua reads them: `[[name, field, by, (ttl)], …]`, or ''. */
export function counterChangesJson(changes: readonly CounterChange[] | undefined): string {
  if (!changes?.length) return '';
  return storableJson(
    changes.map(({ name, field, by, ttlMs }) =>
      ttlMs === undefined ? [name, field, by] : [name, field, by, ttlMs],
    ),
  );
}
