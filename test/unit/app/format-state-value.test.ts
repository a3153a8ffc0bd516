import { describe, expect, it } from 'vitest';
import { formatStateValue } from '../../../src/app/format-state-value.ts';

describe('formatStateValue', () => {
  it('writes flat, nested and parallel state values as one label', () => {
    expect(formatStateValue('asking')).toBe('asking');
    expect(formatStateValue({ survey: 'q2' })).toBe('survey.q2');
    expect(formatStateValue({ survey: { q2: 'waiting' } })).toBe('survey.q2.waiting');
    expect(formatStateValue({ a: 'x', b: { y: {} } })).toBe('a.x, b.y');
  });

  it('names a missing state', () => {
    expect(formatStateValue(undefined, '(start)')).toBe('(start)');
    expect(formatStateValue(null)).toBe('(none)');
  });
});
