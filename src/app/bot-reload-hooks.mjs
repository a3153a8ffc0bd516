// Module resolution hooks for the hot reload of `replyflow dev` (registered by watch-bots.ts).
// A bot file is imported again as `bot.ts?rev=R`; without these hooks, the helper modules it
// imports from the bots folder would keep their first instance. They pass the bot's revision on
// to every module of the bots folder it imports, so helpers are read again with it.
// Plain JavaScript: hooks run on the loader's own thread, before any TypeScript loader applies.

let roots = [];

export function initialize(data) {
  roots = [...roots, data.root];
}

export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  const parent = context.parentURL;
  if (!parent || result.url.includes('?') || result.url.includes('/node_modules/')) return result;
  const root = roots.find((dir) => result.url.startsWith(dir) && parent.startsWith(dir));
  if (!root) return result;
  const revision = new URL(parent).searchParams.get('rev');
  return revision ? { ...result, url: `${result.url}?rev=${revision}` } : result;
}
