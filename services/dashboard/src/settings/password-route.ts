import Type from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../auth/auth-plugin.js';
import type { DashboardDeps } from '../deps.js';
import { Errors, MESSAGES, type FieldErrors } from '../http/errors.js';
import { startSession } from '../auth/log-in.js';
import { errorResponses, SESSION_SECURITY } from '../http/schemas.js';
import { fieldErrors, type SchemaError } from '../http/validation.js';
import { MAX_PASSWORD_LENGTH, newPasswordErrors } from '../auth/password-rules.js';
import rateLimit from '@fastify/rate-limit';
import { createRouteLimiter } from '../password-reset/rate-limit.js';
import { createResponder } from '../auth/respond.js';
import type { PasswordResetService } from '../password-reset/service.js';

export const SETTINGS_PAGE = '/app/settings';
const MessageResponse = Type.Object({ success: Type.Literal(true), message: Type.String() });
const Redirect = Type.Null({ description: 'Form post: 302 to /app/settings with the message or the errors in the flash cookie' });

/**
 * POST /app/settings/password: change the password with the current one (see the app pages in
 * services/dashboard/docs/api.md). The new password follows the reset's rules (newPasswordErrors);
 * the answers are the reset's too: a form goes back to the settings with the message or the
 * errors, a JSON client gets them as JSON. The current password is guessable only at the reset's
 * rate, since a stolen session must not become a stolen account.
 */
export const changePasswordRoute: FastifyPluginAsyncTypebox<{ deps: DashboardDeps; service: PasswordResetService; perMinute?: number }> = async (app, { deps, service, perMinute = 10 }) => {
  // Its own counter at the reset's rate: a guess of the current password costs what a reset does.
  await app.register(rateLimit, { global: false });
  const limiter = createRouteLimiter(app, perMinute);
  const respond = createResponder(deps);
  app.post('/app/settings/password', {
    config: { auth: 'session', page: true },
    schema: {
      tags: ['pages'],
      summary: 'Change the password (web session): current password, new password and its confirmation',
      description: `The new password needs at least 8 characters (at most ${MAX_PASSWORD_LENGTH}) and must equal password_confirmation. ` +
        'Ends every other session and every auth token of the user; API keys stay. 10 requests a minute per client IP and per e-mail (429).',
      security: SESSION_SECURITY,
      body: Type.Object({
        current_password: Type.String({ minLength: 1, maxLength: MAX_PASSWORD_LENGTH }),
        // Its length rules are newPasswordErrors', which counts characters as people do (code points).
        password: Type.String({ minLength: 1 }),
        password_confirmation: Type.String(),
      }),
      response: { 200: MessageResponse, 302: Redirect, ...errorResponses(401, 403, 422, 429, 500) },
    },
    // Checked in the handler: a form post with a bad field goes back to the settings with the errors.
    attachValidation: true,
  }, async (req, reply) => {
    const { userId } = principalOf(req);
    const user = userId ? await deps.repos.users.findById(userId) : null;
    if (!user) throw Errors.unauthenticated();
    const hit = await limiter(req, user.email);
    if (hit) return respond.tooManyAttempts(req, reply, hit.retryAfterSeconds);

    const body = (req.body ?? {}) as Record<string, unknown>;
    const errors: FieldErrors = req.validationError ? fieldErrors(req.validationError.validation as SchemaError[]) : {};
    if (typeof body.password === 'string' && body.password) {
      for (const [field, messages] of Object.entries(newPasswordErrors(body.password, typeof body.password_confirmation === 'string' ? body.password_confirmation : ''))) {
        errors[field] = [...new Set([...(errors[field] ?? []), ...messages])];
      }
    }
    if (Object.keys(errors).length) return respond.fail(req, reply, Errors.validation(errors), SETTINGS_PAGE);

    const result = await service.changePassword({ userId: user.id, currentPassword: req.body.current_password, password: req.body.password });
    if (result === 'wrong-password') return respond.fail(req, reply, Errors.validation({ current_password: [MESSAGES.wrongPassword] }), SETTINGS_PAGE);
    // Every session of the user ended with the change; this browser carries on with a new one.
    await startSession(deps, req, reply, user.id);
    return respond.succeed(req, reply, MESSAGES.passwordChanged, SETTINGS_PAGE);
  });
};
