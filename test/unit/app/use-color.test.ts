import { describe, expect, it } from 'vitest';
import { useColor } from '../../../src/app/use-color.ts';

describe('useColor', () => {
  it('colours a terminal, not a pipe', () => {
    expect(useColor({ isTTY: true }, {})).toBe(true);
    expect(useColor({ isTTY: false }, {})).toBe(false);
    expect(useColor({}, {})).toBe(false);
  });

  it('never colours with NO_COLOR or TERM=dumb; FORCE_COLOR colours a pipe', () => {
    expect(useColor({ isTTY: true }, { NO_COLOR: '1' })).toBe(false);
    expect(useColor({ isTTY: true }, { TERM: 'dumb' })).toBe(false);
    expect(useColor({ isTTY: false }, { FORCE_COLOR: '1' })).toBe(true);
    expect(useColor({ isTTY: false }, { FORCE_COLOR: '0' })).toBe(false);
    expect(useColor({ isTTY: true }, { NO_COLOR: '1', FORCE_COLOR: '1' })).toBe(false);
  });
});
