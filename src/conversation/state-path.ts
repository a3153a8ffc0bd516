/**
 * A state value as a transcript writes it: `'asking'`, a dotted path for nested states
 * (`{ booking: 'date' }` → `'booking.date'`), and for parallel regions each path, sorted and
 * joined with `', '` (`'audio.on, video.off'`).
 *
 * @example
 * statePath({ booking: { date: 'asking' } }); // 'booking.date.asking'
 */
export function statePath(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null || typeof value !== 'object') return String(value);
  const paths = Object.entries(value as Record<string, unknown>).flatMap(([key, child]) => {
    const inner = statePath(child);
    return inner === '' ? [key] : inner.split(', ').map((path) => `${key}.${path}`);
  });
  return paths.sort().join(', ');
}
