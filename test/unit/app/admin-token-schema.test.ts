import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { adminTokenSchema } from '../../../src/app/admin-token-schema.ts';
import { loadConfig } from '../../../src/app/config.ts';

const refusal = (token: string) => {
  const result = adminTokenSchema.safeParse(token);
  return result.success ? undefined : result.error.issues.map((issue) => issue.message);
};

describe('adminTokenSchema', () => {
  it('takes every token openssl rand -hex 32 and -base64 32 make (1,000 of each)', () => {
    for (let i = 0; i < 1_000; i++) {
      for (const token of [randomBytes(32).toString('hex'), randomBytes(32).toString('base64')]) {
        expect(refusal(token), token).toBeUndefined();
      }
    }
  });

  it('trims a token pasted with its newline', () => {
    const token = randomBytes(32).toString('hex');
    expect(adminTokenSchema.parse(`  ${token}\n`)).toBe(token);
  });

  it('refuses short, uniform and repeated tokens, saying how to make one', () => {
    const weak = [
      'aaaaaaaaaaaaaaaa',
      ' '.repeat(16),
      ' '.repeat(32),
      'a'.repeat(64),
      'ab'.repeat(32),
      '0123456789012345678901234567890123',
      '0123456789abcdef'.repeat(2),
      `${'a'.repeat(40)}0123456789`,
      randomBytes(15).toString('hex'),
    ];
    for (const token of weak) {
      expect(refusal(token), JSON.stringify(token)).toEqual([
        expect.stringMatching(
          /^must be a random value of at least 32 characters \(.+\): make one with openssl rand -hex 32$/,
        ),
      ]);
    }
  });

  it('stops the start with one line naming REPLYFLOW_ADMIN_TOKEN', async () => {
    const message = await loadConfig({ REPLYFLOW_ADMIN_TOKEN: 'a'.repeat(32) }).catch(
      (e: Error) => e.message,
    );
    expect(message).toBe(
      'invalid configuration:\n  - REPLYFLOW_ADMIN_TOKEN must be a random value of at least 32 characters (it has only 1 different characters): make one with openssl rand -hex 32',
    );
  });
});
