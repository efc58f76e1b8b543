import Type from 'typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Errors } from '../http/errors.js';
import type { LoginThrottle } from './login-throttle.js';
import { verifyAgainstDummy, verifyPassword } from './passwords.js';
import { SESSION_TTL_MS, clearSessionCookie, readSessionCookie, setSessionCookie } from './session-cookie.js';
import type { UserRepository, UserRow } from '../repositories/user-repository.js';
import type { SessionRepository } from '../repositories/session-repository.js';
import type { ScryptCost } from './passwords.js';
import type { CookiePolicy } from './session-cookie.js';

/** What logging in and out needs of the dashboard's dependencies (deps.ts). */
export interface LogInDeps {
  repos: { users: UserRepository; sessions: SessionRepository };
  passwordCost: ScryptCost;
  cookies: CookiePolicy;
  clock: () => Date;
}

/** The profile page: where password-reset outcomes of a logged-in user land. */
export const HOME_AFTER_LOGIN = '/settings/profile';
/** Where a form login lands when it did not come from a page that wants the user back: the data. */
export const APP_HOME = '/app';
export const LOGIN_PAGE = '/login';

export const Credentials = {
  // No control characters: a NUL byte is a 422 here, never a database error (PostgreSQL refuses it in text).
  email: Type.String({ minLength: 1, maxLength: 255, pattern: '^[^\\x00-\\x1f\\x7f]*$', description: 'E-mail address (case-insensitive)' }),
  password: Type.String({ minLength: 1, maxLength: 1024 }),
};

/** Check an e-mail/password pair; the same time is spent whether or not the e-mail exists. */
export async function checkCredentials(deps: LogInDeps, email: string, password: string): Promise<UserRow | null> {
  const user = await deps.repos.users.findByEmail(email);
  if (!user) return verifyAgainstDummy(password, deps.passwordCost).then(() => null);
  return (await verifyPassword(password, user.passwordHash)) ? user : null;
}

/**
 * A throttled log-in (auth/login-throttle.ts): the user, or null for a wrong e-mail or password.
 * A refused attempt throws 429 (`DASHBOARD_018`, `Retry-After`) before any password is checked,
 * the same for every e-mail, so the answer says nothing about whether an account exists.
 */
export async function throttledLogIn(
  deps: LogInDeps, throttle: LoginThrottle, req: FastifyRequest, reply: FastifyReply, email: string, password: string,
): Promise<UserRow | null> {
  const waitSeconds = await throttle.attempt(email, req.ip);
  if (waitSeconds !== null) {
    reply.header('retry-after', String(waitSeconds));
    req.log.info({ event: 'login_throttled', retryAfterSeconds: waitSeconds }, 'login refused: too many attempts');
    throw Errors.loginThrottled();
  }
  const user = await checkCredentials(deps, email, password);
  if (user) await throttle.succeeded(email, req.ip);
  return user;
}

/** Start a web session for `userId`, replacing the caller's previous one (no session fixation). */
export async function startSession(deps: LogInDeps, req: FastifyRequest, reply: FastifyReply, userId: string): Promise<void> {
  const previous = readSessionCookie(req);
  if (previous) await deps.repos.sessions.delete(previous);
  const { sessionId, expiresAt } = await deps.repos.sessions.create(userId, SESSION_TTL_MS, deps.clock());
  setSessionCookie(reply, sessionId, expiresAt, deps.cookies);
}

export async function endSession(deps: LogInDeps, req: FastifyRequest, reply: FastifyReply): Promise<void> {
  const current = readSessionCookie(req);
  if (current) await deps.repos.sessions.delete(current);
  clearSessionCookie(reply, deps.cookies);
}
