import { describe, expect, it } from 'vitest';
import { createValueCache } from '../../../src/store/redis/value-cache.ts';

describe('the value cache: whether a look may answer from it', () => {
  it('is trusted until stale checks outweigh fresh ones, and again once fresh ones do', () => {
    const values = createValueCache();
    expect(values.trusted()).toBe(true);
    // Fresh checks keep it trusted; one stale check among them does not end it.
    for (let i = 0; i < 20; i++) values.checked(true);
    values.checked(false);
    expect(values.trusted()).toBe(true);
    for (let i = 0; i < 20; i++) values.checked(true);
    // Stale checks in a row end it, one alone does not.
    let stale = 0;
    while (values.trusted() && stale < 100) {
      values.checked(false);
      stale++;
    }
    expect(values.trusted()).toBe(false);
    expect(stale).toBeGreaterThan(1);
    expect(stale).toBeLessThan(10);
    // Half of the checks stale: still not trusted.
    for (let i = 0; i < 40; i++) values.checked(i % 2 === 0);
    expect(values.trusted()).toBe(false);
    // Fresh checks bring it back.
    let fresh = 0;
    while (!values.trusted() && fresh < 100) {
      values.checked(true);
      fresh++;
    }
    expect(values.trusted()).toBe(true);
    expect(fresh).toBeGreaterThan(1);
  });

  it('remembers a look from a value until its check, and forgets it with a new write', () => {
    const values = createValueCache();
    values.setUnlessChanged('c1', 'v1', values.mark('c1'));
    values.looked('c1');
    expect(values.lookChecked('c1')).toBe(true);
    expect(values.lookChecked('c1')).toBe(false);
    values.looked('c1');
    values.sent('c1', 'v2');
    expect(values.lookChecked('c1')).toBe(false);
    // Nothing known: nothing to remember.
    values.looked('c2');
    expect(values.lookChecked('c2')).toBe(false);
  });
});
