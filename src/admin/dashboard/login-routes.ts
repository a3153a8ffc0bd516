import express, { type Request, type Response, Router } from 'express';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import { z } from 'zod';
import type { Logger } from '../../observability/logger.ts';
import { tokenDigests, tokenRole } from '../require-admin-token.ts';
import { type AdminSessions, sessionCookie, sessionMs } from './admin-session.ts';
import { ownOrigin } from './require-admin-access.ts';
import { sendFile } from './serve-page.ts';

export interface LoginRoutesOptions {
  adminToken: string | undefined;
  readToken: string | undefined;
  sessions: AdminSessions | undefined;
  now(): number;
  logger: Logger;
  /** Failed logins an address may make per window before 429. Default 10 per 15 minutes. */
  attempts?: { points: number; durationSeconds: number };
}

/** `POST /admin/login`'s body, a form's or JSON. */
export const loginSchema = z.object({ token: z.string().min(1).max(512) });

/**
 * The login: `GET /admin/login` (the page, `login.css` its style), `POST /admin/login` (a form or
 * JSON `{token}`: either admin token, answered with the session cookie; a form is sent on to
 * `/admin`, JSON gets `{role, csrfToken}`), and `POST /admin/logout`. Failed attempts are counted
 * per client address (this process's memory): past the limit, 429 until the window ends.
 */
export function loginRoutes(options: LoginRoutesOptions): Router {
  const router = Router();
  const tokens =
    options.adminToken === undefined
      ? undefined
      : tokenDigests(options.adminToken, options.readToken);
  const attempts = options.attempts ?? { points: 10, durationSeconds: 15 * 60 };
  const failures = new RateLimiterMemory({
    keyPrefix: 'admin-login',
    points: attempts.points,
    duration: attempts.durationSeconds,
  });

  router.get('/admin/login', (_req, res) => sendFile(res, 'login.html'));
  router.get('/admin/login.css', (_req, res) => sendFile(res, 'login.css'));

  router.post(
    '/admin/login',
    express.urlencoded({ extended: false, limit: '4kb' }),
    express.json({ limit: '4kb' }),
    async (req, res) => {
      const form = !req.is('application/json');
      if (tokens === undefined || options.sessions === undefined) {
        answer(req, res, 403, 'the dashboard is off: set REPLYFLOW_ADMIN_TOKEN to log in');
        return;
      }
      const origin = req.get('origin');
      if (origin !== undefined && origin !== ownOrigin(req)) {
        answer(req, res, 403, `origin '${origin}' refused: log in from the dashboard's own page`);
        return;
      }
      const ip = req.ip ?? 'unknown';
      const used = await failures.get(ip);
      if (used !== null && used.remainingPoints <= 0) {
        res.set('retry-after', String(Math.ceil(used.msBeforeNext / 1000)));
        answer(req, res, 429, 'too many failed logins from this address: wait and try again');
        return;
      }
      const parsed = loginSchema.safeParse(req.body ?? {});
      const token = parsed.success ? parsed.data.token.trim() : '';
      const role = tokenRole(token, tokens);
      if (role !== 'full' && role !== 'read') {
        await failures.penalty(ip, 1);
        options.logger.warn({ ip }, 'admin login: wrong token');
        answer(req, res, 401, 'wrong token');
        return;
      }
      const cookie = options.sessions.sign(role, options.now());
      res.cookie(sessionCookie, cookie, {
        httpOnly: true,
        sameSite: 'strict',
        path: '/admin',
        secure: req.secure,
        maxAge: sessionMs,
      });
      options.logger.info({ ip, role }, 'admin login');
      if (form) res.redirect(303, '/admin');
      else res.json({ role, csrfToken: options.sessions.csrfToken(cookie) });
    },
  );

  router.post('/admin/logout', (req, res) => {
    res.clearCookie(sessionCookie, {
      httpOnly: true,
      sameSite: 'strict',
      path: '/admin',
      secure: req.secure,
    });
    if (req.is('application/json') || req.accepts(['json', 'html']) === 'json') {
      res.json({ loggedOut: true });
    } else res.redirect(303, '/admin/login');
  });

  /** A refusal: the login page saying why to a form, JSON to anyone else. */
  function answer(req: Request, res: Response, status: number, message: string): void {
    if (!req.is('application/json')) sendFile(res.status(status), 'login.html', { message });
    else res.status(status).json({ error: message });
  }

  return router;
}
