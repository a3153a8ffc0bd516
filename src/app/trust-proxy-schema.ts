import { z } from 'zod';

const entry = /^(loopback|linklocal|uniquelocal|[0-9a-f.:]+(\/\d{1,3})?)$/i;

/**
 * REPLYFLOW_TRUST_PROXY as Express's `trust proxy` value: a number of hops (`1`), or addresses,
 * subnets and Express's names (`loopback`, `10.0.0.0/8`), comma-separated. `true` (believe any
 * client's X-Forwarded-For) is refused: anyone could then pick the address the login rate limit
 * counts.
 *
 * @example
 * trustProxySchema.parse('loopback, 10.0.0.0/8'); // ['loopback', '10.0.0.0/8']
 */
export const trustProxySchema = z.string().transform((value, ctx): number | string[] => {
  const text = value.trim();
  if (/^\d{1,2}$/.test(text)) return Number(text);
  const list = text
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
  if (list.length === 0 || !list.every((part) => entry.test(part))) {
    ctx.addIssue({
      code: 'custom',
      message:
        'must be a number of proxies (1) or addresses and subnets, comma-separated (loopback, 10.0.0.0/8)',
    });
  }
  return list;
});
