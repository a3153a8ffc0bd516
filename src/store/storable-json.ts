/**
 * A lone UTF-16 surrogate as `JSON.stringify` writes it, `\udXXX`, when the backslash is its
 * own (not the second half of an escaped `\\`). A well-formed pair is written as the character
 * itself, never escaped, so every such escape in its output is a lone surrogate.
 */
const loneSurrogateEscape = /(?<!\\)((?:\\\\)*)\\ud[89a-f][0-9a-f]{2}/gi;

/**
 * `JSON.stringify` for what the store writes, with every lone surrogate replaced by U+FFFD.
 * Redis's Lua JSON decoder refuses a lone surrogate (`invalid unicode escape`), so one in a
 * bot's context (a text cut in the middle of an emoji) or in an id would fail every script that
 * reads the value, for ever. Costs one `includes` on well-formed text.
 *
 * @example
 * storableJson({ text: 'ok \ud83d' }); // '{"text":"ok \\ufffd"}'
 */
export function storableJson(value: unknown): string {
  const json = JSON.stringify(value);
  return json.includes('\\u') ? json.replace(loneSurrogateEscape, '$1\\ufffd') : json;
}
