import type { Request, RequestHandler, Response } from 'express';
import { adminOffMessage, bearerRole, tokenDigests } from '../require-admin-token.ts';
import { type AdminRole, type AdminSessions, sameText, sessionCookie } from './admin-session.ts';
import { readCookie } from './read-cookie.ts';
import { unauthorizedPage } from './serve-page.ts';

export interface AdminAccessOptions {
  /** REPLYFLOW_ADMIN_TOKEN; unset, every admin route answers 403 (but `openTo`'s requests). */
  adminToken: string | undefined;
  /** REPLYFLOW_ADMIN_READ_TOKEN. */
  readToken: string | undefined;
  /** Signs the session cookies; undefined without an admin token. */
  sessions: AdminSessions | undefined;
  /** Requests served with full access and no credential (`replyflow dev` on loopback). */
  openTo?: (req: Request) => boolean;
  now(): number;
}

/** How the request was let in, in `res.locals.adminAccess`. */
export interface AdminAccess {
  role: AdminRole;
  via: 'bearer' | 'cookie' | 'local';
  /** The session cookie's value (`via: 'cookie'`): its CSRF token is derived from it. */
  session?: string;
}

/** Paths under `/admin` served without a credential: the login page, its CSS and the form's POST. */
const publicPaths = new Set([
  'GET /login',
  'HEAD /login',
  'GET /login.css',
  'HEAD /login.css',
  'POST /login',
]);

/**
 * Guards everything under `/admin`, API and dashboard alike (mounted at `/admin`):
 * - `Authorization: Bearer <REPLYFLOW_ADMIN_TOKEN>`: full access; `Bearer
 *   <REPLYFLOW_ADMIN_READ_TOKEN>`: GET and HEAD only, anything else 403;
 * - else the login's session cookie (`admin-session.ts`), whose requests that change something
 *   must carry its `x-csrf-token` and no foreign `Origin` (403);
 * - else 401: a page asking for a login to a browser, JSON to anyone else. 403 when no admin
 *   token is configured at all: the admin routes are never open by accident.
 */
export function requireAdminAccess(options: AdminAccessOptions): RequestHandler {
  const tokens =
    options.adminToken === undefined
      ? undefined
      : tokenDigests(options.adminToken, options.readToken);
  return (req, res, next) => {
    if (publicPaths.has(`${req.method} ${req.path}`)) return next();
    const access = accessOf(req);
    if (access === 'forbidden') {
      res.status(403).json({ error: adminOffMessage });
      return;
    }
    if (access === undefined) {
      refuse(req, res);
      return;
    }
    res.locals.adminAccess = access;
    if (req.method === 'GET' || req.method === 'HEAD') return next();
    if (access.via === 'cookie') {
      const problem = crossSiteProblem(req, access.session ?? '');
      if (problem) {
        res.status(403).json({ error: problem });
        return;
      }
    }
    // Logging out changes nothing but the caller's own cookie: a read-only session may.
    if (access.role === 'read' && !(req.method === 'POST' && req.path === '/logout')) {
      res.status(403).json({
        error: `read-only token: ${req.method} changes something and needs REPLYFLOW_ADMIN_TOKEN`,
      });
      return;
    }
    next();
  };

  function accessOf(req: Request): AdminAccess | 'forbidden' | undefined {
    if (options.openTo?.(req)) return { role: 'full', via: 'local' };
    if (tokens === undefined) return 'forbidden';
    const bearer = bearerRole(req, tokens);
    if (bearer === 'full' || bearer === 'read') return { role: bearer, via: 'bearer' };
    if (bearer === 'wrong') return undefined;
    const session = readCookie(req, sessionCookie);
    const role = session && options.sessions?.verify(session, options.now());
    return role ? { role, via: 'cookie', session } : undefined;
  }

  /** Why a cookie-borne change is refused (another site's page, or no CSRF token), or undefined. */
  function crossSiteProblem(req: Request, session: string): string | undefined {
    const origin = req.get('origin');
    if (origin !== undefined && origin !== ownOrigin(req)) {
      return `origin '${origin}' refused: the dashboard takes changes from its own pages only`;
    }
    const given = req.get('x-csrf-token') ?? '';
    const expected = options.sessions?.csrfToken(session) ?? '';
    if (!given || !sameText(given, expected)) {
      return 'missing or wrong x-csrf-token: send the one of <meta name="csrf-token"> or GET /admin/api/session';
    }
    return undefined;
  }
}

/** This request's own origin, as a browser names it in `Origin` (behind a trusted proxy, its scheme). */
export function ownOrigin(req: Request): string {
  return `${req.protocol}://${req.get('host') ?? ''}`;
}

function refuse(req: Request, res: Response): void {
  res.status(401).set('www-authenticate', 'Bearer');
  if ((req.method === 'GET' || req.method === 'HEAD') && req.accepts(['json', 'html']) === 'html') {
    unauthorizedPage(res);
    return;
  }
  res.json({
    error:
      'missing or wrong credential: send Authorization: Bearer <REPLYFLOW_ADMIN_TOKEN or REPLYFLOW_ADMIN_READ_TOKEN>, or log in at /admin/login',
  });
}
