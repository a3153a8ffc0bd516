/** How late timers fired, ms: nearest-rank percentiles of every timer's lateness. */
export interface Lateness {
  p50: number;
  p99: number;
  max: number;
}

export function latenessOf(samples: Float64Array): Lateness {
  const sorted = Float64Array.from(samples).sort();
  const at = (p: number) =>
    sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
  return { p50: at(50), p99: at(99), max: at(100) };
}
