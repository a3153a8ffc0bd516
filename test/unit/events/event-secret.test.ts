import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { eventSecretSchema, newEventSecret } from '../../../src/events/event-secret.ts';

function problem(secret: string): string | undefined {
  const result = eventSecretSchema.safeParse(secret);
  return result.success ? undefined : result.error.issues[0]?.message;
}

describe('eventSecretSchema', () => {
  it('takes whsec_ and base64 of 24 to 64 bytes', () => {
    for (const bytes of [24, 32, 64]) {
      expect(problem(`whsec_${randomBytes(bytes).toString('base64')}`)).toBeUndefined();
    }
  });

  it('refuses a secret without the prefix, not base64, or too short or long, saying how to make one', () => {
    const howTo = 'echo "whsec_$(openssl rand -base64 32)"';
    expect(problem(randomBytes(32).toString('base64'))).toContain('must start with whsec_');
    expect(problem('whsec_not base64!')).toContain('followed by base64');
    expect(problem(`whsec_${randomBytes(16).toString('base64')}`)).toContain('this one has 16');
    expect(problem(`whsec_${randomBytes(65).toString('base64')}`)).toContain('this one has 65');
    for (const bad of ['secret', 'whsec_!!', `whsec_${randomBytes(8).toString('base64')}`]) {
      expect(problem(bad)).toContain(howTo);
    }
  });
});

describe('newEventSecret', () => {
  it('makes a valid secret of 32 random bytes, a new one each time', () => {
    const secret = newEventSecret();
    expect(problem(secret)).toBeUndefined();
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
    expect(newEventSecret()).not.toBe(secret);
  });
});
