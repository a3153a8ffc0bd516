const units: Record<string, number> = {
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
};

/**
 * Reads a duration such as `24h`, `3d`, `1h30m`, `90s` or `500ms` as milliseconds. Returns
 * undefined for anything else, so callers can say what they expected.
 *
 * @example
 * parseDuration('1h30m'); // 5_400_000
 */
export function parseDuration(text: string): number | undefined {
  const compact = text.trim().toLowerCase().replace(/\s+/g, '');
  if (!/^(\d+(\.\d+)?(ms|s|m|h|d|w))+$/.test(compact)) return undefined;
  let total = 0;
  for (const [, amount, unit] of compact.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h|d|w)/g)) {
    total += Number(amount) * units[unit!]!;
  }
  return Math.round(total);
}

/**
 * Named delays for `setup({ delays })`, so a typed machine can write `after: { '24h': … }`.
 * Each name must read as a duration; a name that does not throws at once.
 *
 * @example
 * setup({ types: { events: {} as BotEvent }, delays: durations('24h', '3d') }).createMachine({
 *   states: { waiting: { after: { '24h': 'reminded' } } },
 * });
 */
export function durations<const Name extends string>(...names: Name[]): Record<Name, number> {
  const delays = {} as Record<Name, number>;
  for (const name of names) {
    const ms = parseDuration(name);
    if (ms === undefined)
      throw new TypeError(`'${name}' is not a duration such as 24h, 30m, 3d or 1h30m`);
    delays[name] = ms;
  }
  return delays;
}
