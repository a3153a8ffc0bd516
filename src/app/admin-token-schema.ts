import { z } from 'zod';

/**
 * Why `token` is too weak to guard the admin API, or undefined. The rule: at least 32
 * characters, at least 8 different ones, not one block repeated over the whole token
 * (`abcabc…`), and at least half of its pairs of neighbouring characters different from each
 * other (no long run such as `aaaa…` or `0123…0123…`). Every output of `openssl rand -hex 32`
 * or `-base64 32` passes (test/unit/app/admin-token-schema.test.ts; for a 64-character hex
 * token, fewer than 8 different characters has a chance under 1e-18).
 */
export function weakTokenProblem(token: string): string | undefined {
  if (token.length < 32) return `it has ${token.length} characters`;
  const different = new Set(token).size;
  if (different < 8) return `it has only ${different} different characters`;
  if (repeatsOneBlock(token)) return 'it repeats one block';
  const pairs = new Set<string>();
  for (let i = 0; i + 1 < token.length; i++) pairs.add(token.slice(i, i + 2));
  if (pairs.size * 2 < token.length - 1) return 'it repeats itself';
  return undefined;
}

/** True when `token` is one block written again and again (`abab`, `xyzxyzx`). */
function repeatsOneBlock(token: string): boolean {
  for (let period = 1; period * 2 <= token.length; period++) {
    let same = true;
    for (let i = period; i < token.length && same; i++) same = token[i] === token[i - period];
    if (same) return true;
  }
  return false;
}

/**
 * A bearer token that guards the admin API (REPLYFLOW_ADMIN_TOKEN; any later admin token takes
 * the same schema): surrounding whitespace is trimmed (a token pasted with its newline), then it
 * must be random enough (`weakTokenProblem`), or the one-line error says how to make one.
 *
 * @example
 * adminTokenSchema.parse(' 3f9c…e1\n'); // '3f9c…e1' (64 hex characters from openssl rand -hex 32)
 */
export const adminTokenSchema = z.string().transform((value, ctx) => {
  const token = value.trim();
  const problem = weakTokenProblem(token);
  if (problem !== undefined) {
    ctx.addIssue({
      code: 'custom',
      message: `must be a random value of at least 32 characters (${problem}): make one with openssl rand -hex 32`,
    });
  }
  return token;
});
