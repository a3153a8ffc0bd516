/**
 * The type of a key in the store's layout, found from its name alone so that the census
 * follows whatever layout the code writes today (no list of known names): the key without
 * the store's prefix and its hash tag, up to the next `:`. `rf:{p7}:conv:bench:336…` is
 * `conv`, `rf:{p7}:lock:inbox:…` is `lock`, `rf:dead-letters` is `dead-letters`. A key outside
 * the prefix is `(other) <its first segment>`.
 */
export function keyTypeOf(key: string, prefix: string): string {
  if (!key.startsWith(prefix)) return `(other) ${key.split(':')[0]}`;
  const rest = key.slice(prefix.length).replace(/^\{[^}]*\}:/, '');
  const end = rest.indexOf(':');
  return end === -1 ? rest : rest.slice(0, end);
}
