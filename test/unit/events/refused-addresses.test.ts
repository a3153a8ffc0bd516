import { describe, expect, it } from 'vitest';
import { isPrivateAddress } from '../../../src/provider/address-guard.ts';

// postEvent refuses what this classifier calls private (through provider/address-guard's
// connector), unless the subscription allows private addresses.
describe('the address classifier events go through', () => {
  it.each([
    '127.0.0.1',
    '127.8.9.10',
    '0.0.0.0',
    '10.0.0.1',
    '100.64.0.1',
    '169.254.169.254',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '::1',
    'fe80::1',
    'fc00::1',
    'fd12:3456::1',
    '::ffff:10.0.0.1',
    '::ffff:127.0.0.1',
  ])('refuses %s', (ip) => {
    expect(isPrivateAddress(ip)).toBe(true);
  });

  it.each(['8.8.8.8', '2606:4700::1111', '172.32.0.1', '100.128.0.1', '1.1.1.1'])(
    'allows %s',
    (ip) => {
      expect(isPrivateAddress(ip)).toBe(false);
    },
  );
});
