import type { LookupAddress } from 'node:dns';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, LookupFunction } from 'node:net';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addressClass,
  assertPublicHost,
  BlockedAddressError,
  createGuardedLookup,
  guardedConnector,
  isPrivateAddress,
} from '../../../src/provider/address-guard.ts';

/** A resolver that answers `addresses` for every name, as `dns.lookup` would. */
function fakeLookup(addresses: LookupAddress[]): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all) callback(null, addresses);
    else callback(null, addresses[0]!.address, addresses[0]!.family);
  };
}

describe('addressClass sorts every non-public range, in both families', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['0.0.0.0', 'loopback'],
    ['0.1.2.3', 'loopback'],
    ['::1', 'loopback'],
    ['::', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['10.0.0.1', 'private'],
    ['10.255.255.255', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.5', 'private'],
    ['100.64.0.1', 'private'],
    ['100.127.255.255', 'private'],
    ['fc00::1', 'private'],
    ['fd12:3456:789a::1', 'private'],
    ['169.254.169.254', 'link-local'],
    ['169.254.0.1', 'link-local'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['febf::1', 'link-local'],
  ])('%s is %s', (ip, kind) => {
    expect(addressClass(ip)).toBe(kind);
    expect(isPrivateAddress(ip)).toBe(true);
  });

  it.each([
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['0:0:0:0:0:ffff:7f00:1', 'loopback'],
    ['::ffff:0.0.0.0', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:192.168.0.1', 'private'],
    ['::ffff:a9fe:a9fe', 'link-local'], // 169.254.169.254
  ])('the IPv4-mapped %s is %s', (ip, kind) => {
    expect(addressClass(ip)).toBe(kind);
  });

  it.each([
    '1.1.1.1',
    '8.8.8.8',
    '93.184.216.34',
    '172.15.255.255',
    '172.32.0.1',
    '100.63.255.255',
    '100.128.0.1',
    '169.253.255.255',
    '128.0.0.1',
    '11.0.0.1',
    '2606:4700:4700::1111',
    '2001:db8::1',
    '::ffff:8.8.8.8',
    'fec0::1',
  ])('%s is public', (ip) => {
    expect(addressClass(ip)).toBeUndefined();
    expect(isPrivateAddress(ip)).toBe(false);
  });

  it('throws on what is not an IP address, rather than calling it public', () => {
    expect(() => addressClass('example.com')).toThrow(/not an IP address/);
    expect(() => addressClass('[::1]')).toThrow(/not an IP address/);
  });
});

describe('assertPublicHost', () => {
  it('refuses an IP literal of a URL, brackets included, without resolving', async () => {
    const never: LookupFunction = () => {
      throw new Error('an IP literal is not resolved');
    };
    for (const [host, kind] of [
      ['127.0.0.1', 'loopback'],
      ['[::1]', 'loopback'],
      ['[::ffff:7f00:1]', 'loopback'],
      ['10.0.0.1', 'private'],
      ['169.254.169.254', 'link-local'],
    ] as const) {
      const refused = await assertPublicHost(host, never).catch((error: unknown) => error);
      expect(refused, host).toBeInstanceOf(BlockedAddressError);
      expect((refused as BlockedAddressError).addressClass).toBe(kind);
      expect((refused as BlockedAddressError).code).toBe('ADDRESS_BLOCKED');
    }
  });

  it('refuses localhost and *.localhost by name', async () => {
    await expect(assertPublicHost('localhost')).rejects.toMatchObject({
      addressClass: 'loopback',
    });
    await expect(assertPublicHost('App.Localhost')).rejects.toMatchObject({
      addressClass: 'loopback',
    });
  });

  it('refuses a name when any of its addresses is non-public, naming it', async () => {
    const lookup = fakeLookup([
      { address: '93.184.216.34', family: 4 },
      { address: '10.1.2.3', family: 4 },
    ]);
    await expect(assertPublicHost('mixed.example', lookup)).rejects.toThrow(
      "'mixed.example' resolves to 10.1.2.3, a private address",
    );
  });

  it('gives the addresses of a public name', async () => {
    const lookup = fakeLookup([{ address: '93.184.216.34', family: 4 }]);
    expect(await assertPublicHost('example.com', lookup)).toEqual([
      { address: '93.184.216.34', family: 4 },
    ]);
    expect(await assertPublicHost('8.8.8.8')).toEqual([{ address: '8.8.8.8', family: 4 }]);
  });
});

describe('createGuardedLookup, as net and undici call it', () => {
  const call = (lookup: LookupFunction, all: boolean) =>
    new Promise<{ error: unknown; found: unknown; family: unknown }>((resolve) => {
      lookup('host.example', { all }, (error, found, family) => resolve({ error, found, family }));
    });

  it('answers a public address in both shapes', async () => {
    const guarded = createGuardedLookup(fakeLookup([{ address: '8.8.4.4', family: 4 }]));
    expect(await call(guarded, false)).toMatchObject({ error: null, found: '8.8.4.4', family: 4 });
    expect(await call(guarded, true)).toMatchObject({
      error: null,
      found: [{ address: '8.8.4.4', family: 4 }],
    });
  });

  it('fails with BlockedAddressError when the name resolves to a non-public address', async () => {
    const guarded = createGuardedLookup(fakeLookup([{ address: '::ffff:127.0.0.1', family: 6 }]));
    for (const all of [false, true]) {
      const { error } = await call(guarded, all);
      expect(error).toBeInstanceOf(BlockedAddressError);
      expect((error as Error).message).toContain('a loopback address');
    }
  });
});

describe('guardedConnector refuses at connection time', () => {
  let server: Server;
  let port: number;
  let hits = 0;
  beforeAll(async () => {
    server = createServer((_req, res) => {
      hits++;
      res.end('ok');
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((done) => server.close(() => done())));

  it('an IP literal and a name that resolves to loopback never reach the server', async () => {
    // The name resolves to loopback at connection time, whatever it resolved to before.
    const agent = new Agent({
      connect: guardedConnector({ lookup: fakeLookup([{ address: '127.0.0.1', family: 4 }]) }),
    });
    try {
      for (const url of [
        `http://127.0.0.1:${port}/`,
        `http://[::1]:${port}/`,
        `http://rebound.example:${port}/`,
      ]) {
        const error = await request(url, { dispatcher: agent }).catch((e: unknown) => e);
        expect(error, url).toBeInstanceOf(BlockedAddressError);
      }
      expect(hits).toBe(0);
    } finally {
      await agent.close();
    }
  });

  it('a name that resolves to a public address is connected to that address', async () => {
    // 192.0.2.1 (TEST-NET-1, documentation only) is public to the guard and answers nobody.
    const seen: string[] = [];
    const lookup: LookupFunction = (hostname, options, callback) => {
      seen.push(hostname);
      fakeLookup([{ address: '192.0.2.1', family: 4 }])(hostname, options, callback);
    };
    const agent = new Agent({ connect: guardedConnector({ lookup, timeout: 200 }) });
    try {
      // The connection times out or is unreachable: the guard let it through to the address.
      const error = await request(`http://public.example:${port}/`, { dispatcher: agent }).catch(
        (e: unknown) => e,
      );
      expect(error).not.toBeInstanceOf(BlockedAddressError);
      expect(seen).toEqual(['public.example']);
    } finally {
      await agent.destroy();
    }
  });
});
