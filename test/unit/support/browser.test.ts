import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { screenshotPath } from '../../support/browser.ts';

describe('the browser tests’ screenshots', () => {
  it('go to a temporary folder unless UPDATE_SCREENSHOTS=1, so a run leaves docs/img alone', () => {
    expect(screenshotPath('x.png', {})).toBe(join(tmpdir(), 'replyflow-screenshots', 'x.png'));
    expect(screenshotPath('x.png', { UPDATE_SCREENSHOTS: '0' })).not.toContain('docs/img');
    expect(screenshotPath('x.png', { UPDATE_SCREENSHOTS: '1' })).toBe(resolve('docs/img/x.png'));
  });
});
