import { randomBytes } from 'node:crypto';
import { z } from 'zod';

const prefix = 'whsec_';
const howToMake = 'make one with: echo "whsec_$(openssl rand -base64 32)"';

/** The HMAC key of a `whsec_…` secret: its base64 part, decoded (Standard Webhooks). */
export function eventSecretKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith(prefix) ? secret.slice(prefix.length) : secret, 'base64');
}

/** Why `secret` is not a Standard Webhooks secret of 24–64 bytes, or undefined when it is one. */
export function eventSecretProblem(secret: string): string | undefined {
  if (!secret.startsWith(prefix)) return `must start with ${prefix}: ${howToMake}`;
  const encoded = secret.slice(prefix.length);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded) || encoded.length % 4 !== 0) {
    return `must be ${prefix} followed by base64: ${howToMake}`;
  }
  const bytes = eventSecretKey(secret).length;
  if (bytes < 24 || bytes > 64) {
    return `must decode to 24 to 64 bytes after ${prefix} (this one has ${bytes}): ${howToMake}`;
  }
  return undefined;
}

/** A subscription's secret: `whsec_` + base64 of 24–64 random bytes, checked at start. */
export const eventSecretSchema = z.string().superRefine((secret, ctx) => {
  const problem = eventSecretProblem(secret);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});

/** A new secret for a subscription: `whsec_` + base64 of 32 random bytes. */
export function newEventSecret(): string {
  return `${prefix}${randomBytes(32).toString('base64')}`;
}
