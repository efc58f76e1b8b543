import Type from 'typebox';
import { Compile } from 'typebox/compile';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../auth/auth-plugin.js';
import { setFlash, takeFlash } from '../auth/flash.js';
import type { DashboardDeps } from '../deps.js';
import type { FieldErrors } from '../http/errors.js';
import type { ChatbotRow } from '../repositories/chatbot-repository.js';
import { ChatbotSettingsBody } from './routes.js';
import { errorResponses, SESSION_SECURITY } from '../http/schemas.js';
import { fieldErrors, type SchemaError } from '../http/validation.js';
import { sendAppPage } from '../html/layout.js';
import { setupPages } from './setup-pages.js';
import { signingSecretBody, trackingSettingsBody, type TrackingForm } from './tracking-settings-views.js';
import { revenueSettingsSection } from './revenue-settings-views.js';
import { html } from '../html/html.js';

const Page = Type.String({ description: 'HTML page' });
const Redirect = Type.Null({ description: 'Redirect' });
const Params = Type.Object({ id: Type.String({ format: 'uuid' }) });
// Text as the browser sends it; judged by the JSON API's own body schema in the handler.
const TrackingFormBody = Type.Object({
  allowedOrigins: Type.Optional(Type.String()),
  maxPurchaseEur: Type.Optional(Type.String()),
  requireSignedPurchases: Type.Optional(Type.String()),
  retentionDays: Type.Optional(Type.String()),
  holdoutPercent: Type.Optional(Type.String()),
});

/** The tracking form as the row stands (also under the revenue form when that one is refused). */
export const formOf = (row: ChatbotRow): TrackingForm => ({
  allowedOrigins: row.allowedOrigins.join('\n'), maxPurchaseEur: String(row.maxPurchaseEur), requireSignedPurchases: row.requireSignedPurchases,
  retentionDays: String(row.retentionDays), holdoutPercent: String(row.holdoutPercent), errors: null,
});

/**
 * A chatbot's tracking settings page under /app (web session): the same repository and body
 * rules as PATCH /api/dashboard/chatbots/:id and POST …/signing-secret. The secret appears on
 * exactly one answer, the one that generated it.
 */
export const trackingSettingsRoutes: FastifyPluginAsyncTypebox<{ deps: DashboardDeps }> = async (app, { deps }) => {
  const { chatbots } = deps.repos;
  const check = Compile(ChatbotSettingsBody);
  const config = { auth: 'session' as const, page: true };
  const schema = <E extends object>(summary: string, extra: E, ok: Record<number, typeof Page | typeof Redirect> = { 200: Page }) => ({
    tags: ['pages'], summary, security: SESSION_SECURITY, ...extra, response: { ...ok, ...errorResponses(401, 403, 404, 422, 500) },
  });
  const { frame, own } = setupPages(chatbots);
  const secretPage = async (accountId: string, row: ChatbotRow, secret: string) =>
    ({ title: `${row.name}: purchase signing secret`, ...(await frame(accountId, row.id)), body: signingSecretBody(row, secret) });

  app.get('/app/:id/tracking', { config, schema: schema("A chatbot's tracking settings", { params: Params }) }, async (req, reply) => {
    const { accountId } = principalOf(req);
    const row = await own(accountId, req.params.id);
    const revenue = revenueSettingsSection(row, { revenueSource: row.revenueSource, attributionWindowDays: String(row.attributionWindowDays), displayCurrency: row.displayCurrency, errors: null }, deps.config.ingestPublicUrl);
    return sendAppPage(reply, { title: `${row.name}: tracking settings`, ...(await frame(accountId, row.id)), body: html`${trackingSettingsBody(row, formOf(row), takeFlash(req, reply))}${revenue}` });
  });

  app.post('/app/:id/tracking', {
    config, schema: schema('Save the tracking settings (the secret page when signing was turned on without one)', { params: Params, body: TrackingFormBody }, { 201: Page, 302: Redirect }),
  }, async (req, reply) => {
    const { accountId } = principalOf(req);
    const row = await own(accountId, req.params.id);
    const text = { allowedOrigins: req.body.allowedOrigins ?? '', maxPurchaseEur: (req.body.maxPurchaseEur ?? '').trim(), requireSignedPurchases: req.body.requireSignedPurchases === 'true',
      retentionDays: (req.body.retentionDays ?? String(row.retentionDays)).trim(),
      holdoutPercent: (req.body.holdoutPercent ?? '').trim() };
    const input = {
      allowedOrigins: text.allowedOrigins.split(/[\s,]+/).map((o) => o.replace(/\/+$/, '')).filter(Boolean),
      maxPurchaseEur: text.maxPurchaseEur === '' ? Number.NaN : Number(text.maxPurchaseEur),
      requireSignedPurchases: text.requireSignedPurchases,
      retentionDays: text.retentionDays === '' ? Number.NaN : Number(text.retentionDays),
      // An empty field keeps no holdout; anything else is judged by the API's rule (an integer 0–50).
      holdoutPercent: text.holdoutPercent === '' ? 0 : Number(text.holdoutPercent),
    };
    const errors: FieldErrors | null = check.Check(input) ? null : fieldErrors(check.Errors(input) as unknown as SchemaError[]);
    if (errors) {
      return sendAppPage(reply, { title: `${row.name}: tracking settings`, ...(await frame(accountId, row.id)), body: trackingSettingsBody(row, { ...text, errors }, null) }, 422);
    }
    const saved = (await chatbots.updateTrackingSettings(accountId, row.id, input))!;
    if (saved.requireSignedPurchases && !saved.hasSigningSecret) {
      const secret = (await chatbots.rotateSigningSecret(accountId, row.id))!;
      return sendAppPage(reply, await secretPage(accountId, saved, secret), 201);
    }
    setFlash(reply, { status: 'Tracking settings saved. The tracking endpoint applies them within 15 seconds.' }, deps.cookies);
    return reply.redirect(`/app/${row.id}/tracking`, 302);
  });

  app.post('/app/:id/tracking/signing-secret', {
    config, schema: schema('Generate a new purchase signing secret; the page shows it once', { params: Params }, { 201: Page }),
  }, async (req, reply) => {
    const { accountId } = principalOf(req);
    const row = await own(accountId, req.params.id);
    const secret = (await chatbots.rotateSigningSecret(accountId, row.id))!;
    return sendAppPage(reply, await secretPage(accountId, row, secret), 201);
  });
};
