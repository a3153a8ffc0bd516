import type { CustomColumn } from './schemas/custom-column.ts';

export interface CustomColumnsCache {
  /** The columns, fetched when the cached copy is older than the TTL; `fetched` says which. */
  get(): Promise<{ columns: CustomColumn[]; fetched: boolean }>;
  /** Fetches now and caches the result, whatever the age of the cached copy. */
  refresh(): Promise<CustomColumn[]>;
}

export interface CustomColumnsCacheOptions {
  fetch(): Promise<CustomColumn[]>;
  ttlMs: number;
  now(): number;
}

/** Default time a fetched list of custom columns is trusted. */
export const defaultCustomColumnsTtlMs = 5 * 60_000;

/**
 * Keeps `GET /customColumns` for `ttlMs`, so that adding contacts in bulk costs one listing, not
 * one per contact. Concurrent callers share one in-flight fetch; a failed fetch is not cached.
 */
export function createCustomColumnsCache(options: CustomColumnsCacheOptions): CustomColumnsCache {
  let cached: { columns: CustomColumn[]; at: number } | undefined;
  let inFlight: Promise<CustomColumn[]> | undefined;

  function refresh(): Promise<CustomColumn[]> {
    inFlight ??= options
      .fetch()
      .then((columns) => {
        cached = { columns, at: options.now() };
        return columns;
      })
      .finally(() => {
        inFlight = undefined;
      });
    return inFlight;
  }

  return {
    async get() {
      if (cached && options.now() - cached.at < options.ttlMs) {
        return { columns: cached.columns, fetched: false };
      }
      return { columns: await refresh(), fetched: true };
    },
    refresh,
  };
}
