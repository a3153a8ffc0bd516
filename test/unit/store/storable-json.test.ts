import { describe, expect, it } from 'vitest';
import { storableJson } from '../../../src/store/storable-json.ts';

describe('storableJson', () => {
  it('writes what JSON.stringify writes when every text is well-formed', () => {
    const value = { a: 'é 😀 \\ud800 as text', b: [1, 'x'], c: null };
    expect(storableJson(value)).toBe(JSON.stringify(value));
  });

  it('replaces each lone surrogate, in values and keys, by U+FFFD', () => {
    const cut = '😀'.slice(0, 1);
    const json = storableJson({ text: `ok ${cut}`, [`k${'\udc00'}`]: ['\udfff', `a\\${cut}`] });
    expect(JSON.parse(json)).toEqual({ text: 'ok \uFFFD', 'k\uFFFD': ['\uFFFD', 'a\\\uFFFD'] });
    expect(json).not.toMatch(/\\ud[89a-f]/i);
  });
});
