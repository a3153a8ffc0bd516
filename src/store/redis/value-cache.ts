export interface ValueCache {
  /** The value as last read or written ('' for none), or undefined when not known here. */
  get(id: string): string | undefined;
  set(id: string, value: string): void;
  delete(id: string): void;
}

/**
 * The conversation values this process read (a direct turn's look) or wrote (its commit, a
 * recorded send) last, by conversation id, so that the next write of a turn is built in the
 * process and sent whole, checked in Redis against the value it was built on (issue 26: Redis
 * compares and writes instead of cutting and joining the value in Lua). A value moved by anyone
 * since makes that check fail, and the write goes by the script that merges; so an entry is a
 * hint, never a truth: a stale one costs one call, never a wrong write. The oldest go past `max`.
 */
export function createValueCache(max = 2_048): ValueCache {
  const known = new Map<string, string>();
  return {
    get: (id) => known.get(id),
    set(id, value) {
      known.delete(id);
      known.set(id, value);
      if (known.size > max) known.delete(known.keys().next().value as string);
    },
    delete: (id) => {
      known.delete(id);
    },
  };
}
