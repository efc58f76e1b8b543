import type { Config } from '@chatlytics/core';
import type { Database } from '@chatlytics/postgres';
import type { FastifyBaseLogger } from 'fastify';
import { hashPassword, verifyPassword, type ScryptCost } from '../auth/passwords.js';
import { createJobQueue, type JobRow } from '../jobs/queue.js';
import type { MailTemplates } from '../mail/templates.js';
import type { MailTransport } from '../mail/transport.js';
import type { JobHandler, JobOutcome } from '../jobs/worker.js';
import { createCredentialRepository } from '../repositories/credential-repository.js';
import { createSessionRepository } from '../repositories/session-repository.js';
import { createUserRepository, normalizeEmail } from '../repositories/user-repository.js';
import { createResetTokenRepository } from './repository.js';
import { newResetToken, tokenMatches, type TokenSealer } from './tokens.js';

/** Kinds of the e-mail jobs this flow queues. */
export const RESET_LINK_JOB = 'password_reset_link';
export const PASSWORD_CHANGED_JOB = 'password_changed';

export interface PasswordResetServiceDeps {
  db: Database;
  config: Pick<Config, 'appUrl' | 'mail' | 'passwordReset'>;
  /** "Now" of tokens (issue time, expiry, throttle); tests move it. */
  clock: () => Date;
  /** "Now" of the job queue: real time, since the worker's timers are real. */
  queueClock: () => Date;
  passwordCost: ScryptCost;
  sealer: TokenSealer;
  templates: MailTemplates;
  transport: MailTransport;
  log: FastifyBaseLogger;
}

const discarded: JobOutcome = { outcome: 'discarded' };

export function createPasswordResetService(d: PasswordResetServiceDeps) {
  const jobs = createJobQueue({ db: d.db });
  const tokens = createResetTokenRepository({ db: d.db });
  const users = createUserRepository({ db: d.db });
  const { expireMinutes, throttleSeconds } = d.config.passwordReset;
  const expiresAfterMs = expireMinutes * 60_000;

  /** Built from APP_URL, never from the request's Host header (a forged Host would steal the token). */
  const resetLink = (token: string, email: string) =>
    `${d.config.appUrl}/reset-password/${encodeURIComponent(token)}?email=${encodeURIComponent(email)}`;

  /**
   * The worker's half of a request: look the address up, apply the throttle, issue the token
   * and send the link. Nothing of this runs inside the HTTP request, so its duration cannot
   * tell an attacker whether the address has an account or was throttled.
   */
  const sendResetLink: JobHandler = async (job: JobRow) => {
    const email = String(job.payload.email);
    const sealed = typeof job.payload.sealedToken === 'string' ? job.payload.sealedToken : null;
    let token = sealed ? d.sealer.open(sealed) : null;
    if (token) {
      // A retry resends its own link, unless a newer request replaced the token or it was used.
      const row = await tokens.find(email);
      if (!row || !tokenMatches(token, row.tokenHash)) return discarded;
    } else {
      const user = await users.findByEmail(email);
      if (!user) return discarded;
      const fresh = newResetToken();
      const issued = await tokens.issue({
        email, tokenHash: fresh.hash, now: d.clock(), throttleSeconds, jobId: job.id,
        jobPayload: { ...job.payload, sealedToken: d.sealer.seal(fresh.token) },
      });
      if (!issued) {
        d.log.info({ jobId: job.id }, 'password reset throttled: the current token is kept');
        return discarded;
      }
      token = fresh.token;
    }
    const variables = { email, resetUrl: resetLink(token, email), expireMinutes: String(expireMinutes) };
    const mail = d.templates.render('reset-password', variables);
    await d.transport.send({
      to: email, ...mail, idempotencyKey: job.id,
      providerTemplate: d.config.mail.templateId ? { id: d.config.mail.templateId, variables } : undefined,
    });
    // The sealed token leaves the row with the e-mail: the record keeps no way to the account.
    return { outcome: 'sent', payload: { email } };
  };

  const sendPasswordChanged: JobHandler = async (job) => {
    const email = String(job.payload.email);
    const changedAt = new Date(String(job.payload.changedAt));
    const mail = d.templates.render('password-changed', {
      email,
      changedAt: `${changedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC`,
      forgotPasswordUrl: `${d.config.appUrl}/forgot-password`,
    });
    await d.transport.send({ to: email, ...mail, idempotencyKey: job.id });
    return { outcome: 'sent', payload: job.payload };
  };

  return {
    resetLink,

    /**
     * POST /forgot-password and /app/send-password-reset: the same single insert for every
     * address (known, unknown or throttled), so the response cannot differ (see the password reset rules in services/dashboard/README.md).
     */
    async requestLink(email: string): Promise<void> {
      await jobs.enqueue(RESET_LINK_JOB, { email: normalizeEmail(email) }, d.queueClock());
    },

    /**
     * Per the password reset rules in services/dashboard/README.md: a valid, unexpired token of that e-mail sets the password, is used up, and
     * ends every session and auth token of the user (API keys belong to the account and stay).
     * Null for any invalid token, without saying why.
     */
    async resetPassword(input: { token: string; email: string; password: string }): Promise<{ userId: string } | null> {
      const email = normalizeEmail(input.email);
      const now = d.clock();
      const issuedAfter = new Date(now.getTime() - expiresAfterMs);
      const row = await tokens.find(email);
      if (!row || !tokenMatches(input.token, row.tokenHash) || row.createdAt.getTime() <= issuedAfter.getTime()) return null;
      const user = await users.findByEmail(email);
      if (!user) return null;
      // Hashed before the transaction: scrypt takes ~100 ms, too long to hold row locks for.
      const passwordHash = await hashPassword(input.password, d.passwordCost);
      const done = await d.db.transaction(async (tx) => {
        if (!(await createResetTokenRepository({ db: tx }).consume(email, row.tokenHash, issuedAfter))) return false;
        await createUserRepository({ db: tx }).updatePassword(user.id, passwordHash);
        await createSessionRepository({ db: tx }).deleteAllOfUser(user.id);
        await createCredentialRepository({ db: tx }).deleteAuthTokensOfUser(user.id);
        await createJobQueue({ db: tx }).enqueue(PASSWORD_CHANGED_JOB, { email: user.email, changedAt: now.toISOString() }, d.queueClock());
        return true;
      });
      if (!done) return null;
      d.log.info({ userId: user.id }, 'password reset: password changed, sessions and auth tokens ended');
      return { userId: user.id };
    },

    /**
     * The settings page's password change (see the app pages in services/dashboard/docs/api.md):
     * the current password must match; then, as after a reset, the new one is set, every session
     * and auth token of the user ends and the "password changed" e-mail is queued. The caller
     * starts a fresh session for the browser that asked. 'wrong-password' says nothing else.
     */
    async changePassword(input: { userId: string; currentPassword: string; password: string }): Promise<'changed' | 'wrong-password'> {
      const user = await users.findById(input.userId);
      if (!user || !(await verifyPassword(input.currentPassword, user.passwordHash))) return 'wrong-password';
      // Hashed before the transaction, as in resetPassword.
      const passwordHash = await hashPassword(input.password, d.passwordCost);
      await d.db.transaction(async (tx) => {
        await createUserRepository({ db: tx }).updatePassword(user.id, passwordHash);
        await createSessionRepository({ db: tx }).deleteAllOfUser(user.id);
        await createCredentialRepository({ db: tx }).deleteAuthTokensOfUser(user.id);
        await createJobQueue({ db: tx }).enqueue(PASSWORD_CHANGED_JOB, { email: user.email, changedAt: d.clock().toISOString() }, d.queueClock());
      });
      d.log.info({ userId: user.id }, 'password changed in the settings: sessions and auth tokens ended');
      return 'changed';
    },

    handlers: { [RESET_LINK_JOB]: sendResetLink, [PASSWORD_CHANGED_JOB]: sendPasswordChanged } as Record<string, JobHandler>,
  };
}
export type PasswordResetService = ReturnType<typeof createPasswordResetService>;
