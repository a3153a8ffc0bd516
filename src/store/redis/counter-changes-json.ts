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

/** Counter changes as `changeCounterArgs` (lib/change-counters.lua) reads them: their count, then four arguments each. */
export function counterChangeArgs(
  changes: readonly CounterChange[] | undefined,
): (string | number)[] {
  const args: (string | number)[] = [changes?.length ?? 0];
  for (const { name, field, by, ttlMs } of changes ?? []) args.push(name, field, by, ttlMs ?? '');
  return args;
}
