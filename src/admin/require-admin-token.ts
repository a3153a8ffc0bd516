import { createHash, timingSafeEqual } from 'node:crypto';
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

/**
 * Guards a route with `Authorization: Bearer <token>`: 401 on a missing or wrong token. The
 * comparison is constant-time: both sides are hashed first, so neither the length nor the first
 * differing byte shows in the timing.
 */
export function requireAdminToken(options: AdminTokenOptions): RequestHandler {
  const expected = options.token === undefined ? undefined : digest(options.token);
  return (req, res, next) => {
    if (expected === undefined) {
      if (options.whenUnset === 'open') return next();
      res.status(403).json({
        error: 'the admin API is off: set REPLYFLOW_ADMIN_TOKEN (openssl rand -hex 32) to use it',
      });
      return;
    }
    const header = req.get('authorization') ?? '';
    const match = /^Bearer\s+(.+)$/i.exec(header.trim());
    if (!match || !timingSafeEqual(digest(match[1] ?? ''), expected)) {
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
