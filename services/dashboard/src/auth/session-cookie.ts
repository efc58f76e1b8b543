import type { FastifyReply, FastifyRequest } from 'fastify';

export const SESSION_COOKIE = 'chatlytics_session';
/** Absolute session lifetime; a week keeps people logged in across a working week. */
export const SESSION_TTL_MS = 7 * 24 * 60 * 60 * 1000;

export interface CookiePolicy {
  /** True when APP_URL is https: the browser then only sends the cookie over TLS. */
  secure: boolean;
}

export function cookiePolicy(appUrl: string): CookiePolicy {
  return { secure: new URL(appUrl).protocol === 'https:' };
}

/** The session id from the signed cookie, or null when absent or tampered with. */
export function readSessionCookie(req: FastifyRequest): string | null {
  const raw = req.cookies?.[SESSION_COOKIE];
  if (!raw) return null;
  const unsigned = req.unsignCookie(raw);
  return unsigned.valid && unsigned.value ? unsigned.value : null;
}

export function setSessionCookie(reply: FastifyReply, sessionId: string, expiresAt: Date, policy: CookiePolicy): void {
  reply.setCookie(SESSION_COOKIE, sessionId, {
    path: '/', httpOnly: true, sameSite: 'lax', secure: policy.secure, signed: true, expires: expiresAt,
  });
}

export function clearSessionCookie(reply: FastifyReply, policy: CookiePolicy): void {
  reply.clearCookie(SESSION_COOKIE, { path: '/', httpOnly: true, sameSite: 'lax', secure: policy.secure });
}
