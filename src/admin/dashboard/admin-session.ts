import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** What a credential allows: `full` everything, `read` GET and HEAD only. */
export type AdminRole = 'full' | 'read';

/** The dashboard's session cookie. */
export const sessionCookie = 'replyflow_admin';

/** How long a login lasts. */
export const sessionMs = 12 * 3_600_000;

/**
 * Signs and checks the dashboard's session cookies. A cookie is self-contained,
 * `role.expiry.nonce.mac` with an HMAC-SHA256 keyed from the admin tokens, so every `web`
 * process verifies it without shared state, and changing either token logs everyone out.
 *
 * @example
 * const sessions = adminSessions({ adminToken, readToken });
 * const cookie = sessions.sign('read', Date.now());
 * sessions.verify(cookie, Date.now()); // 'read'
 */
export function adminSessions(tokens: { adminToken: string; readToken?: string | undefined }) {
  const key = createHmac('sha256', tokens.adminToken)
    .update(`replyflow-session\u0000${tokens.readToken ?? ''}`)
    .digest();
  const mac = (text: string) => createHmac('sha256', key).update(text).digest('base64url');
  return {
    /** A new session's cookie value. */
    sign(role: AdminRole, now: number): string {
      const body = `${role}.${now + sessionMs}.${randomBytes(12).toString('base64url')}`;
      return `${body}.${mac(body)}`;
    },
    /** The role of a valid, unexpired cookie value, or undefined. */
    verify(value: string, now: number): AdminRole | undefined {
      const cut = value.lastIndexOf('.');
      if (cut < 0) return undefined;
      const body = value.slice(0, cut);
      if (!sameText(value.slice(cut + 1), mac(body))) return undefined;
      const [role, expiry] = body.split('.');
      if (role !== 'full' && role !== 'read') return undefined;
      return Number(expiry) > now ? role : undefined;
    },
    /** The CSRF token of a session: what its pages send as `x-csrf-token`. */
    csrfToken(cookieValue: string): string {
      return mac(`csrf\u0000${cookieValue}`);
    },
  };
}

export type AdminSessions = ReturnType<typeof adminSessions>;

/** Constant-time equality of two short strings (their lengths may show; a MAC's length is public). */
export function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
