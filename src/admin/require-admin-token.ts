import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { RequestHandler } from 'express';

export interface AdminTokenOptions {
  /** REPLYFLOW_ADMIN_TOKEN; undefined when none is configured. */
  token: string | undefined;
  /**
   * What a route does when no token is configured: `open` serves it (`/metrics`), `forbidden`
   * answers 403 (the admin routes, which must never be open by accident).
   */
  whenUnset: 'open' | 'forbidden';
}

/** What `bearerRole` finds: the token's role, `wrong`, or `none` (no bearer header). */
export type BearerMatch = 'full' | 'read' | 'wrong' | 'none';

/** The admin tokens, kept hashed for `bearerRole`. */
export interface TokenDigests {
  full: Buffer;
  read: Buffer | undefined;
}

/** Hashes the configured tokens once. */
export function tokenDigests(adminToken: string, readToken?: string): TokenDigests {
  return {
    full: digest(adminToken),
    read: readToken === undefined ? undefined : digest(readToken),
  };
}

/**
 * Which admin token a request's `Authorization: Bearer <token>` carries. The comparisons are
 * constant-time: both sides are hashed first, so neither the length nor the first differing
 * byte shows in the timing, and both tokens are always compared.
 */
export function bearerRole(req: IncomingMessage, tokens: TokenDigests): BearerMatch {
  const header = req.headers.authorization ?? '';
  if (header.trim() === '') return 'none';
  const match = /^Bearer\s+(.+)$/i.exec(header.trim());
  const role = tokenRole(match?.[1] ?? '', tokens);
  return match ? role : 'wrong';
}

/** Which admin token `token` is (the login form's), constant-time as `bearerRole`. */
export function tokenRole(token: string, tokens: TokenDigests): Exclude<BearerMatch, 'none'> {
  const given = digest(token);
  const full = timingSafeEqual(given, tokens.full);
  const read = tokens.read !== undefined && timingSafeEqual(given, tokens.read);
  return full ? 'full' : read ? 'read' : 'wrong';
}

/** The answer to a request without the admin API's token, when none is configured. */
export const adminOffMessage =
  'the admin API is off: set REPLYFLOW_ADMIN_TOKEN (openssl rand -hex 32) to use it';

/**
 * Guards a route with `Authorization: Bearer <token>` (`/metrics`): 401 on a missing or wrong
 * token. The admin routes and the dashboard take more (a read-only token, a login cookie):
 * `dashboard/require-admin-access.ts`.
 */
export function requireAdminToken(options: AdminTokenOptions): RequestHandler {
  const tokens = options.token === undefined ? undefined : tokenDigests(options.token);
  return (req, res, next) => {
    if (tokens === undefined) {
      if (options.whenUnset === 'open') return next();
      res.status(403).json({ error: adminOffMessage });
      return;
    }
    if (bearerRole(req, tokens) !== 'full') {
      res.status(401).set('www-authenticate', 'Bearer').json({
        error: 'missing or wrong token: send Authorization: Bearer <REPLYFLOW_ADMIN_TOKEN>',
      });
      return;
    }
    next();
  };
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}
