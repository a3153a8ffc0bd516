/**
 * An XState state value as one short label: `asking`, `survey.q2`, or `a.x, b.y` for parallel
 * states; `(start)` before the first step and `(none)` when the step left no state.
 */
export function formatStateValue(value: unknown, missing = '(none)'): string {
  if (value === undefined || value === null) return missing;
  if (typeof value === 'string') return value;
  if (typeof value !== 'object') return String(value);
  return Object.entries(value as Record<string, unknown>)
    .map(([key, inner]) => {
      const rest = formatStateValue(inner, '');
      return rest === '' ? key : `${key}.${rest}`;
    })
    .join(', ');
}
