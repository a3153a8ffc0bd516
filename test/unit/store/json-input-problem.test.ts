import { describe, expect, it } from 'vitest';
import { jsonInputProblem, maxJsonDepth } from '../../../src/store/json-input-problem.ts';

const nested = (depth: number): unknown => {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
};

describe('jsonInputProblem', () => {
  it('takes inputs up to 32 levels deep, and names the path of a deeper one', () => {
    expect(maxJsonDepth).toBe(32);
    expect(jsonInputProblem(nested(32), 'input')).toBeUndefined();
    expect(jsonInputProblem(nested(33), 'input')).toBe(
      `input${'.a'.repeat(32)}: nested deeper than 32 levels`,
    );
    expect(jsonInputProblem(JSON.parse(`${'['.repeat(5_000)}${']'.repeat(5_000)}`))).toMatch(
      /nested deeper than 32 levels/,
    );
  });

  it('refuses a lone surrogate in a text or a key, unless told the strings are checked elsewhere', () => {
    expect(jsonInputProblem({ name: 'Ada 😀' })).toBeUndefined();
    expect(jsonInputProblem({ name: 'Ada \ud83d' }, 'input')).toBe(
      'input.name: is not well-formed text (a lone UTF-16 surrogate)',
    );
    expect(jsonInputProblem({ ['\udc00']: 1 }, 'input')).toMatch(/key that is not well-formed/);
    expect(jsonInputProblem({ name: '\ud83d' }, 'body', { strings: false })).toBeUndefined();
  });
});
