/**
 * Whether to colour output written to `stream`: only on a terminal, and never with `NO_COLOR`
 * set (no-color.org) or `TERM=dumb`. `FORCE_COLOR` (non-empty, not 0) colours anyway.
 */
export function useColor(
  stream: { isTTY?: boolean },
  env: NodeJS.ProcessEnv = process.env,
): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '' && env.FORCE_COLOR !== '0') {
    return true;
  }
  return stream.isTTY === true && env.TERM !== 'dumb';
}
