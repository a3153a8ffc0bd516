/**
 * A function's source text in a form that does not depend on the loader that compiled it, for
 * the bot's version. tsx prints code minified (no spaces or comments, `void 0`, `x=>` for a
 * lone parameter, no `;` before `}`); vitest keeps a readable layout and comments and reaches
 * imports through `__vi_import_N__` / `__vite_ssr_import_N__`. Both outputs normalise to the same
 * text: comments and whitespace go, quotes become `"`, `void 0` reads `undefined`, escapes such
 * as `\xE0` (tsx writes `à` so) become their character, and so on.
 * Whitespace inside string literals goes too (only a whitespace-only edit of a text goes
 * unnoticed).
 *
 * @example
 * normalizeSource('(event) => {\n  // yes?\n  return event.body !== undefined;\n}');
 * // 'event=>{returnevent.body!==undefined}'
 */
export function normalizeSource(source: string): string {
  return stripComments(source)
    .replace(/\\x([0-9A-Fa-f]{2})|\\u([0-9A-Fa-f]{4})|\\u\{([0-9A-Fa-f]+)\}/g, (_, x, u, cp) =>
      String.fromCodePoint(Number.parseInt(x ?? u ?? cp, 16)),
    )
    .replace(/\s+/g, '')
    .replace(/'/g, '"')
    .replace(/\bvoid0\b/g, 'undefined')
    .replace(/\(0,__vi(?:te_ssr)?_import_\d+__\.([\w$]+)\)/g, '$1')
    .replace(/__vi(?:te_ssr)?_import_\d+__\./g, '')
    .replace(/\(([\w$]+)\)=>/g, '$1=>')
    .replace(/[;,]+([}\])])/g, '$1');
}

/** Drops `//` and `/* *\/` comments outside string literals and escapes. */
function stripComments(source: string): string {
  let out = '';
  let quote: string | undefined;
  for (let i = 0; i < source.length; i++) {
    const char = source[i]!;
    const next = source[i + 1];
    if (char === '\\') {
      out += char + (next ?? '');
      i++;
    } else if (quote) {
      if (char === quote) quote = undefined;
      out += char;
    } else if (char === '"' || char === "'" || char === '`') {
      quote = char;
      out += char;
    } else if (char === '/' && next === '/') {
      while (i < source.length && source[i] !== '\n') i++;
      out += '\n';
    } else if (char === '/' && next === '*') {
      const end = source.indexOf('*/', i + 2);
      i = end < 0 ? source.length : end + 1;
      out += ' ';
    } else out += char;
  }
  return out;
}
