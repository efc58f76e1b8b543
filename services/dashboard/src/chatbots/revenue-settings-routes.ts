import Type from 'typebox';
import { Compile } from 'typebox/compile';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../auth/auth-plugin.js';
import { setFlash } from '../auth/flash.js';
import type { DashboardDeps } from '../deps.js';
import type { FieldErrors } from '../http/errors.js';
import { errorResponses, SESSION_SECURITY } from '../http/schemas.js';
import { fieldErrors, type SchemaError } from '../http/validation.js';
import { sendAppPage } from '../html/layout.js';
import { setupPages } from './setup-pages.js';
import { html } from '../html/html.js';
import { RevenueSettingsFields } from './revenue-settings.js';
import { ordersKeyBody, revenueSettingsSection } from './revenue-settings-views.js';
import { trackingSettingsBody } from './tracking-settings-views.js';
import { formOf } from './tracking-settings-routes.js';
import { DisplaySettingsFields } from './routes.js';

const Page = Type.String({ description: 'HTML page' });
const Redirect = Type.Null({ description: 'Redirect' });
const Params = Type.Object({ id: Type.String({ format: 'uuid' }) });
const RevenueFormBody = Type.Object({
  revenueSource: Type.Optional(Type.String()),
  attributionWindowDays: Type.Optional(Type.String()),
  shopifyWebhookSecret: Type.Optional(Type.String()),
  woocommerceWebhookSecret: Type.Optional(Type.String()),
  displayCurrency: Type.Optional(Type.String()),
});
const check = Compile(Type.Object({ ...RevenueSettingsFields, ...DisplaySettingsFields }, { additionalProperties: false }));

/**
 * The revenue part of a chatbot's tracking page (/app/:id/tracking): the same rules and
 * repository as PATCH /api/dashboard/chatbots/:id and POST …/orders-key. A secret typed in is
 * stored and never shown; an empty secret field keeps the stored one.
 */
export const revenueSettingsRoutes: FastifyPluginAsyncTypebox<{ deps: DashboardDeps }> = async (app, { deps }) => {
  const { chatbots, ordersSettings } = deps.repos;
  const ingestUrl = deps.config.ingestPublicUrl;
  const config = { auth: 'session' as const, page: true };
  const schema = <E extends object>(summary: string, extra: E, ok: Record<number, typeof Page | typeof Redirect>) => ({
    tags: ['pages'], summary, security: SESSION_SECURITY, ...extra, response: { ...ok, ...errorResponses(401, 403, 404, 422, 500) },
  });
  const { frame, own } = setupPages(chatbots);

  app.post('/app/:id/tracking/revenue', {
    config, schema: schema('Save where revenue comes from, the attribution window, the display currency and the shop webhook secrets', { params: Params, body: RevenueFormBody }, { 302: Redirect }),
  }, async (req, reply) => {
    const { accountId } = principalOf(req);
    const row = await own(accountId, req.params.id);
    const text = {
      revenueSource: req.body.revenueSource ?? 'tracker', attributionWindowDays: (req.body.attributionWindowDays ?? '').trim(), displayCurrency: req.body.displayCurrency ?? row.displayCurrency,
    };
    const secret = (v: string | undefined) => (v && v.trim() !== '' ? v.trim() : undefined);
    const input = {
      revenueSource: text.revenueSource,
      attributionWindowDays: /^\d{1,2}$/.test(text.attributionWindowDays) ? Number(text.attributionWindowDays) : Number.NaN,
      ...(secret(req.body.shopifyWebhookSecret) ? { shopifyWebhookSecret: secret(req.body.shopifyWebhookSecret) } : {}),
      ...(secret(req.body.woocommerceWebhookSecret) ? { woocommerceWebhookSecret: secret(req.body.woocommerceWebhookSecret) } : {}),
      // Left out by an older form: the currency stays.
      ...(req.body.displayCurrency !== undefined ? { displayCurrency: req.body.displayCurrency } : {}),
    };
    const errors: FieldErrors | null = check.Check(input) ? null : fieldErrors(check.Errors(input) as unknown as SchemaError[]);
    if (errors) {
      const tracking = trackingSettingsBody(row, formOf(row), null);
      const body = html`${tracking}${revenueSettingsSection(row, { ...text, errors }, ingestUrl)}`;
      return sendAppPage(reply, { title: `${row.name}: tracking settings`, ...(await frame(accountId, row.id)), body }, 422);
    }
    const { displayCurrency, ...revenue } = input;
    await ordersSettings.updateRevenueSettings(accountId, row.id, revenue as Parameters<typeof ordersSettings.updateRevenueSettings>[2]);
    if (displayCurrency !== undefined) await chatbots.updateTrackingSettings(accountId, row.id, { displayCurrency });
    setFlash(reply, { status: 'Revenue settings saved. The statistics use them at once; the receivers take a new secret within 15 seconds.' }, deps.cookies);
    return reply.redirect(`/app/${row.id}/tracking`, 302);
  });

  app.post('/app/:id/tracking/orders-key', {
    config, schema: schema('Generate a new orders key; the page shows it once', { params: Params }, { 201: Page }),
  }, async (req, reply) => {
    const { accountId } = principalOf(req);
    const row = await own(accountId, req.params.id);
    const minted = (await ordersSettings.rotateOrdersKey(accountId, row.id))!;
    return sendAppPage(reply, { title: `${row.name}: orders key`, ...(await frame(accountId, row.id)), body: ordersKeyBody(row, minted, ingestUrl) }, 201);
  });
};
