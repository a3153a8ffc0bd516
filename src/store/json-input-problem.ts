/** A lone UTF-16 surrogate: with the `u` flag a well-formed pair is one code point, never `Cs`. */
const loneSurrogate = /\p{Cs}/u;

/** The deepest nesting a JSON input may have: a bot's start input or a notification is a few levels deep. */
export const maxJsonDepth = 32;

/**
 * What makes a parsed JSON input unfit to store, or undefined when it is fine: nesting deeper
 * than `maxDepth` (Redis's Lua JSON decoder stops at 1,000 levels, and a deep value costs every
 * later read), or a string or key that is not well-formed Unicode (a lone surrogate). The path
 * of the first problem is named (`input.a.b`). Walks without recursion, so any depth is safe.
 *
 * @example
 * jsonInputProblem({ a: [[[]]] }, 'input', { maxDepth: 2 }); // 'input.a.0: nested deeper than 2 levels'
 */
export function jsonInputProblem(
  value: unknown,
  path = '(root)',
  options: {
    maxDepth?: number;
    /** Check the strings too (default true); off where a schema checks or repairs them field by field. */
    strings?: boolean;
  } = {},
): string | undefined {
  const maxDepth = options.maxDepth ?? maxJsonDepth;
  const strings = options.strings ?? true;
  const stack: Array<[value: unknown, path: string, depth: number]> = [[value, path, 0]];
  for (let next = stack.pop(); next; next = stack.pop()) {
    const [item, at, depth] = next;
    if (typeof item === 'string') {
      if (strings && loneSurrogate.test(item))
        return `${at}: is not well-formed text (a lone UTF-16 surrogate)`;
      continue;
    }
    if (typeof item !== 'object' || item === null) continue;
    if (depth >= maxDepth) return `${at}: nested deeper than ${maxDepth} levels`;
    for (const [key, child] of Object.entries(item)) {
      if (strings && loneSurrogate.test(key))
        return `${at}: has a key that is not well-formed text`;
      stack.push([child, `${at}.${key}`, depth + 1]);
    }
  }
  return undefined;
}
