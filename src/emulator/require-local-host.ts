import type { IncomingMessage, ServerResponse } from 'node:http';
import { isIP } from 'node:net';
import { apiErrorBody, apiErrorCodes } from './emulator-api-error.ts';
import { isLoopback } from './is-loopback.ts';

export interface LocalHostOptions {
  /** Host names or addresses answered besides loopback ones, any port (`--allow-host`). */
  allowedHosts?: readonly string[];
  /** The interface the server listens on: a specific one (not 0.0.0.0 or ::) is answered too. */
  listenHost?: string;
}

/** Express middleware and request-listener prefix alike: calls `next` to let the request on. */
export type HostGuard = (req: IncomingMessage, res: ServerResponse, next: () => void) => void;

/**
 * Answers 403 to a request whose `Host` header is not a loopback name or address (localhost,
 * *.localhost, 127.0.0.0/8, [::1], any port) nor an allowed one, before anything reads it. A
 * server on loopback is still within reach of every web page the browser opens: a page whose
 * name the attacker rebinds to 127.0.0.1 (DNS rebinding) sends its own name as `Host`.
 * A request that changes something (any method but GET, HEAD, OPTIONS) sent by a page of
 * another site is refused too: a plain HTML form can POST to 127.0.0.1 with the right `Host`,
 * but the browser names the page's site in `Origin` (and `Sec-Fetch-Site: cross-site`). Calls
 * from a server or a command line carry neither, and pass.
 *
 * @example
 * server.on('request', (req, res) => guard(req, res, () => app(req, res)));
 */
export function requireLocalHost(options: LocalHostOptions = {}): HostGuard {
  const allowed = new Set((options.allowedHosts ?? []).map(hostnameOf));
  const listen = options.listenHost && hostnameOf(options.listenHost);
  // Listening on one address means being reached at it; a wildcard names no address.
  if (listen && listen !== '0.0.0.0' && listen !== '::') allowed.add(listen);
  return (req, res, next) => {
    const header = req.headers.host;
    const name = header ? hostnameOf(header) : '';
    const local = (host: string) => isLoopback(host) || allowed.has(host);
    const refused = !(name && local(name))
      ? header
        ? `Host '${header}' refused: this server answers only requests addressed to this machine (localhost, 127.0.0.1, [::1]) or to an allowed host, so that no web page reaches it by DNS rebinding; to reach it as '${name}', start it with --allow-host ${name} (option allowedHosts)`
        : 'a request without a Host header refused: this server answers only requests addressed to this machine (localhost, 127.0.0.1, [::1]) or to an allowed host'
      : crossSite(req, local);
    if (refused === undefined) {
      next();
      return;
    }
    const body = JSON.stringify(apiErrorBody(403, apiErrorCodes.HOST_NOT_ALLOWED, refused));
    res.writeHead(403, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
    });
    res.end(body);
  };
}

/** The host name of a `Host` header or of an option: lower case, without port or brackets. */
function hostnameOf(value: string): string {
  const host = value.trim().toLowerCase();
  if (host.startsWith('['))
    return host.slice(1, host.includes(']') ? host.indexOf(']') : undefined);
  if (isIP(host) === 6) return host;
  const colon = host.lastIndexOf(':');
  return colon >= 0 ? host.slice(0, colon) : host;
}

/** Methods that change nothing: a page of another site may send them (and cannot read the answer). */
const safeMethods = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Why a request that changes something came from a page of another site, if it did: its
 * `Origin` names a host that is not this machine's (nor allowed), or the browser says
 * `Sec-Fetch-Site: cross-site`.
 */
function crossSite(req: IncomingMessage, local: (host: string) => boolean): string | undefined {
  if (safeMethods.has(req.method ?? 'GET')) return undefined;
  const origin = req.headers.origin;
  let from: string | undefined;
  if (origin !== undefined && origin !== 'null') {
    try {
      from = new URL(origin).hostname.replace(/^\[|\]$/g, '');
    } catch {
      from = origin;
    }
  }
  const site = req.headers['sec-fetch-site'];
  if (
    (from !== undefined && !local(from.toLowerCase())) ||
    site === 'cross-site' ||
    origin === 'null'
  ) {
    return `a ${req.method} from a page of another site (${origin ?? site}) refused: this server changes nothing for another site's pages (a form or a script could otherwise drive it); use it from its own page, curl or the CLI`;
  }
  return undefined;
}
