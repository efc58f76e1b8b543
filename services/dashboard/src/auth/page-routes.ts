import Type from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { DashboardDeps } from '../deps.js';
import { takeFlash } from './flash.js';
import { createResponder } from './respond.js';
import { APP_HOME, HOME_AFTER_LOGIN, LOGIN_PAGE } from './log-in.js';
import { forgotPasswordPage } from './forgot-password-page.js';
import { sendAppPage, sendPage } from '../html/layout.js';
import { loginPage } from './login-page.js';
import { profilePage } from './profile-page.js';
import { resetPasswordPage } from './reset-password-page.js';

const Page = Type.String({ description: 'HTML page' });
const Redirect = Type.Null({ description: 'Redirect' });

/**
 * The server-rendered pages of the login and password reset flow. They carry no scripts; form
 * posts are CSRF-safe through the SameSite=Lax session cookie and the Origin check of the POSTs.
 */
export const pageRoutes: FastifyPluginAsyncTypebox<{ deps: DashboardDeps }> = async (app, { deps }) => {
  const { session } = createResponder(deps);
  const common = { tags: ['pages'], response: { 200: Page, 302: Redirect } };

  // Guest pages: a logged-in visitor has nothing to do there and goes to the app.
  app.get(LOGIN_PAGE, { config: { auth: 'none', page: true }, schema: { ...common, summary: 'Log-in page' } }, async (req, reply) => {
    if (await session(req)) return reply.redirect(APP_HOME, 302);
    return sendPage(reply, loginPage(takeFlash(req, reply)));
  });

  app.get('/forgot-password', { config: { auth: 'none', page: true }, schema: { ...common, summary: 'Request a password reset link' } }, async (req, reply) => {
    if (await session(req)) return reply.redirect(APP_HOME, 302);
    return sendPage(reply, forgotPasswordPage(takeFlash(req, reply)));
  });

  app.get('/reset-password/:token', {
    config: { auth: 'none', page: true },
    // Fastify logs every request's URL at info level; this URL carries a live reset token.
    logLevel: 'warn',
    schema: {
      ...common,
      summary: 'The form to choose a new password (link of the reset e-mail); open to guests and logged-in users',
      params: Type.Object({ token: Type.String({ minLength: 1, maxLength: 512 }) }),
      querystring: Type.Object({ email: Type.Optional(Type.String({ maxLength: 255 })) }),
    },
  }, async (req, reply) => {
    return sendPage(reply, resetPasswordPage({ token: req.params.token, email: req.query.email ?? '', flash: takeFlash(req, reply) }));
  });

  app.get(HOME_AFTER_LOGIN, { config: { auth: 'none', page: true }, schema: { ...common, summary: 'Profile settings (web session; guests go to /login)' } }, async (req, reply) => {
    const current = await session(req);
    // The flash stays for the login page: e.g. "password reset" after the session was ended.
    if (!current) return reply.redirect(LOGIN_PAGE, 302);
    // In the app's layout, with its header: the way on to the chatbots.
    const chatbots = (await deps.repos.chatbots.listForAccount(current.accountId)).map((c) => ({ id: c.id, name: c.name }));
    return sendAppPage(reply, { ...profilePage({ email: current.email, flash: takeFlash(req, reply) }), chatbots });
  });
};
