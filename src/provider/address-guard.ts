import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { createRequire } from 'node:module';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import type { buildConnector } from 'undici';
import { errorCodes, ValidationError } from '../errors.ts';

const load = createRequire(import.meta.url);

/** Why an address is refused: it reaches this machine, a private network, or the link. */
export type AddressClass = 'loopback' | 'private' | 'link-local';

const ranges: Array<[AddressClass, string, number, 'ipv4' | 'ipv6']> = [
  ['loopback', '127.0.0.0', 8, 'ipv4'],
  // 0.0.0.0 (and "this network") and :: connect to this machine on Linux.
  ['loopback', '0.0.0.0', 8, 'ipv4'],
  ['loopback', '::1', 128, 'ipv6'],
  ['loopback', '::', 128, 'ipv6'],
  ['private', '10.0.0.0', 8, 'ipv4'],
  ['private', '172.16.0.0', 12, 'ipv4'],
  ['private', '192.168.0.0', 16, 'ipv4'],
  ['private', '100.64.0.0', 10, 'ipv4'], // carrier-grade NAT
  ['private', 'fc00::', 7, 'ipv6'], // unique local
  ['link-local', '169.254.0.0', 16, 'ipv4'], // cloud metadata (169.254.169.254) included
  ['link-local', 'fe80::', 10, 'ipv6'],
];

// BlockList checks an IPv4-mapped IPv6 address (::ffff:127.0.0.1) against the IPv4 rules too.
const lists = new Map<AddressClass, BlockList>();
for (const [kind, network, prefix, family] of ranges) {
  const list = lists.get(kind) ?? new BlockList();
  list.addSubnet(network, prefix, family);
  lists.set(kind, list);
}

/** The class of an IP address (either family, any form `isIP` takes), or undefined when public. */
export function addressClass(ip: string): AddressClass | undefined {
  const family = isIP(ip);
  if (family === 0) throw new TypeError(`'${ip}' is not an IP address`);
  const type = family === 4 ? 'ipv4' : 'ipv6';
  for (const [kind, list] of lists) if (list.check(ip, type)) return kind;
  return undefined;
}

/** True for a loopback, private or link-local address: one a request from here must not reach. */
export function isPrivateAddress(ip: string): boolean {
  return addressClass(ip) !== undefined;
}

/** A destination refused before any connection: it is, or resolves to, a non-public address. */
export class BlockedAddressError extends ValidationError {
  constructor(
    readonly host: string,
    readonly address: string,
    readonly addressClass: AddressClass,
  ) {
    super(
      errorCodes.ADDRESS_BLOCKED,
      host === address
        ? `'${host}' is a ${addressClass} address: refused, as it reaches this machine or its network`
        : `'${host}' resolves to ${address}, a ${addressClass} address: refused, as it reaches this machine or its network`,
    );
  }
}

/**
 * Resolves `hostname` (a URL's, brackets allowed) and throws `BlockedAddressError` when it is,
 * or any of its addresses is, loopback, private or link-local; gives the addresses otherwise.
 * DNS failures reject as `dns.lookup` does. A check at registration only: DNS can change before
 * the request, so the request itself goes through `guardedLookup` or `guardedConnector`.
 */
export async function assertPublicHost(
  hostname: string,
  lookup: LookupFunction = dnsLookup,
): Promise<LookupAddress[]> {
  const bare = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (bare === 'localhost' || bare.endsWith('.localhost')) {
    throw new BlockedAddressError(bare, bare, 'loopback');
  }
  const family = isIP(bare);
  const addresses = family ? [{ address: bare, family }] : await resolveAll(bare, lookup);
  const blocked = firstBlocked(bare, addresses);
  if (blocked) throw blocked;
  return addresses;
}

function resolveAll(hostname: string, lookup: LookupFunction): Promise<LookupAddress[]> {
  return new Promise<LookupAddress[]>((resolve, reject) => {
    lookup(hostname, { all: true }, (error, found) => {
      if (error) reject(error);
      else resolve(found as LookupAddress[]);
    });
  });
}

/**
 * A `lookup` for `net.connect` and undici's `connect.lookup`: resolves with `lookup` and fails
 * the connection with `BlockedAddressError` when any address is non-public, so the address
 * checked is the address connected to. `net` skips the lookup for an IP literal: the connector
 * below checks those.
 */
export function createGuardedLookup(lookup: LookupFunction = dnsLookup): LookupFunction {
  return (hostname, options, callback) => {
    lookup(hostname, { ...options, all: true }, (error, found, _family) => {
      if (error) return callback(error, '', 0);
      const addresses = found as LookupAddress[];
      const blocked = firstBlocked(hostname, addresses);
      if (blocked) return callback(blocked, '', 0);
      if (options.all) return callback(null, addresses);
      const [first] = addresses;
      if (!first) return callback(lookupFailed(hostname), '', 0);
      callback(null, first.address, first.family);
    });
  };
}

/** `createGuardedLookup()` over the system resolver. */
export const guardedLookup: LookupFunction = createGuardedLookup();

/**
 * An undici connector (`new Agent({ connect: guardedConnector() })`) that refuses non-public
 * destinations: an IP literal before connecting, a name through `createGuardedLookup`.
 */
export function guardedConnector(
  options: buildConnector.BuildOptions & { lookup?: LookupFunction } = {},
): buildConnector.connector {
  // undici loads with the first connector, as in provider-transport.ts.
  const { buildConnector: build } = load('undici') as typeof import('undici');
  const connect = build({ ...options, lookup: createGuardedLookup(options.lookup) });
  return (target, callback) => {
    const bare = target.hostname.replace(/^\[|\]$/g, '');
    const kind = isIP(bare) ? addressClass(bare) : undefined;
    if (kind) callback(new BlockedAddressError(bare, bare, kind), null);
    else connect(target, callback);
  };
}

function firstBlocked(host: string, addresses: LookupAddress[]): BlockedAddressError | undefined {
  for (const { address } of addresses) {
    const kind = addressClass(address);
    if (kind) return new BlockedAddressError(host, address, kind);
  }
  return undefined;
}

function lookupFailed(hostname: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), {
    code: 'ENOTFOUND',
    hostname,
  });
}
