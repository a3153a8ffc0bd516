import { describe, expect, it } from 'vitest';
import { isLoopback } from '../../../src/emulator/is-loopback.ts';

describe('isLoopback', () => {
  it('accepts the hosts only this machine reaches', () => {
    for (const host of [
      '127.0.0.1',
      '127.255.0.9',
      'localhost',
      'LOCALHOST',
      'app.localhost',
      '::1',
      '[::1]',
    ]) {
      expect(isLoopback(host), host).toBe(true);
    }
  });

  it('refuses every other host, including look-alikes', () => {
    for (const host of [
      '0.0.0.0',
      '::',
      '10.0.0.1',
      '192.168.1.10',
      '169.254.169.254',
      'localhost.example.com',
      '127.0.0.1.nip.io',
      'example.com',
      '[::ffff:10.0.0.1]',
      '',
    ]) {
      expect(isLoopback(host), host).toBe(false);
    }
  });
});
