import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import {
  type LocalHostOptions,
  requireLocalHost,
} from '../../../src/emulator/require-local-host.ts';

/** Whether the guard lets a request with this `Host` header on, and what it answered if not. */
function admits(
  options: LocalHostOptions,
  host: string | undefined,
  extra: { method?: string; headers?: Record<string, string> } = {},
) {
  let passed = false;
  let status: number | undefined;
  let body = '';
  const res = {
    writeHead(code: number) {
      status = code;
      return res;
    },
    end(text: string) {
      body = text;
    },
  };
  requireLocalHost(options)(
    {
      method: extra.method ?? 'GET',
      headers: { ...(host === undefined ? {} : { host }), ...extra.headers },
    } as IncomingMessage,
    res as unknown as ServerResponse,
    () => {
      passed = true;
    },
  );
  return { passed, status, body: body ? JSON.parse(body) : undefined };
}

describe('requireLocalHost', () => {
  it.each([
    'localhost',
    'localhost:3000',
    'LocalHost:3000',
    'app.localhost:8080',
    '127.0.0.1',
    '127.0.0.1:3000',
    '127.255.0.9:1',
    '[::1]',
    '[::1]:3000',
  ])('lets %s on', (host) => {
    expect(admits({}, host).passed).toBe(true);
  });

  it.each([
    'evil.example',
    'evil.example:3000',
    '0.0.0.0:3000',
    '[::]:3000',
    '192.168.1.5:3000',
    'localhost.evil.example',
    '127.0.0.1.nip.io:3000',
    '[::ffff:7f00:1]:3000',
    '',
  ])('refuses %j with 403 and says how to allow it', (host) => {
    const answer = admits({}, host);
    expect(answer).toMatchObject({ passed: false, status: 403 });
    expect(answer.body.error.code).toBe('HOST_NOT_ALLOWED');
  });

  it('refuses a request without Host', () => {
    expect(admits({}, undefined)).toMatchObject({ passed: false, status: 403 });
  });

  it('names the refused host and the flag that allows it', () => {
    expect(admits({}, 'Evil.Example:3000').body.error.message).toMatch(
      /Host 'Evil\.Example:3000' refused.*--allow-host evil\.example/,
    );
  });

  it('lets the allowed hosts on, whatever their case and port, brackets or not', () => {
    const options = { allowedHosts: ['devbox.lan', 'FD00::7', '[fd00::8]', 'named.lan:3000'] };
    for (const host of ['devbox.lan', 'DEVBOX.LAN:9', '[fd00::7]:3000', '[fd00::8]', 'named.lan']) {
      expect(admits(options, host).passed, host).toBe(true);
    }
    expect(admits(options, 'other.lan').passed).toBe(false);
  });

  it('lets a specific listening address on, and nothing more for a wildcard', () => {
    expect(admits({ listenHost: '192.168.1.5' }, '192.168.1.5:3000').passed).toBe(true);
    expect(admits({ listenHost: 'fe80::1' }, '[fe80::1]:3000').passed).toBe(true);
    expect(admits({ listenHost: 'devbox.lan' }, 'devbox.lan').passed).toBe(true);
    expect(admits({ listenHost: '0.0.0.0' }, '0.0.0.0:3000').passed).toBe(false);
    expect(admits({ listenHost: '::' }, '[::]:3000').passed).toBe(false);
    expect(admits({ listenHost: '192.168.1.5' }, '192.168.1.6').passed).toBe(false);
  });

  it("refuses a POST from a page of another site (a form or a script), and lets this machine's own pages, servers and curl on", () => {
    const post = (headers: Record<string, string>) =>
      admits({ allowedHosts: ['dev.example'] }, '127.0.0.1:3000', { method: 'POST', headers });
    const crossSite: Array<Record<string, string>> = [
      { origin: 'https://evil.example' },
      { origin: 'null' },
      { 'sec-fetch-site': 'cross-site' },
      { origin: 'http://127.0.0.1.nip.io:3000' },
    ];
    for (const headers of crossSite) {
      expect(post(headers), JSON.stringify(headers)).toMatchObject({ passed: false, status: 403 });
    }
    const ownOrNone: Array<Record<string, string>> = [
      {},
      { origin: 'http://127.0.0.1:3000' },
      { origin: 'http://localhost:3000', 'sec-fetch-site': 'same-origin' },
      { origin: 'http://[::1]:3000' },
      { origin: 'http://dev.example:3000' },
    ];
    for (const headers of ownOrNone) {
      expect(post(headers).passed, JSON.stringify(headers)).toBe(true);
    }
    // Reading is harmless: a page cannot read the answer of another site.
    expect(
      admits({}, '127.0.0.1:3000', { headers: { origin: 'https://evil.example' } }).passed,
    ).toBe(true);
  });
});
