import Type from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../auth/auth-plugin.js';
import { readSessionCookie } from '../auth/session-cookie.js';
import type { DashboardDeps } from '../deps.js';
import { DashboardError, Errors } from '../http/errors.js';
import { html } from '../html/html.js';
import { presentChatbot } from '../chatbots/presenter.js';
import { errorResponses, SESSION_SECURITY } from '../http/schemas.js';
import { parseFrame, utcDate } from '../stats/window.js';
import type { AnyStatistic, ExtraOf } from '../stats/statistic.js';
import type { Answer, StatsService } from '../stats/run.js';
import { cart, conversationInsights, engagement, lift, liveEvents, overview, popupMetrics, purchases, reconciliation, setAsidePurchases, sources, timeseries } from '../stats/statistics/index.js';
import { analyticsBody, csvLinks, rangeForm, timeframeForm } from './analytics-view.js';
import { segmentOf } from '../stats/segment.js';
import { DEFAULT_BY, filterBar, keptPairs, sourcesSection } from './segment-view.js';
import { conversationBody, insightsBody, insightsForm, visitorEventsBody } from './conversation-views.js';
import type { VisitorEventRepository } from './visitor-event-repository.js';
import type { ConversationRepository } from './conversation-repository.js';
import { APP_VIEWS, chatbotChoice, sendAppPage, type AppView, type ChatbotChoice } from '../html/layout.js';
import { chatbotListBody, liveBody, setupSteps } from './list-views.js';
import { headlineRow } from './headline-view.js';
import { accountFigures, accountTotals } from './account-overview.js';
import { moneyIn } from '../html/money.js';
import { analyticsPairsOf, DEFAULT_INSIGHTS_TIMEFRAME, viewQuery } from '../html/window-link.js';

const Page = Type.String({ description: 'HTML page' });
const Redirect = Type.Null({ description: 'Redirect' });
const Uuid = Type.String({ format: 'uuid' });
const TimeframeQuery = Type.Object({ timeframe: Type.Optional(Type.String({ maxLength: 50 })) });
// Loose text on purpose: a malformed day is answered by the form's message, not a bare 422.
const AnalyticsQuery = Type.Object({
  timeframe: Type.Optional(Type.String({ maxLength: 50 })),
  from: Type.Optional(Type.String({ maxLength: 50 })),
  to: Type.Optional(Type.String({ maxLength: 50 })),
  // On unless turned off: the page compares with the previous period by default.
  compare: Type.Optional(Type.Union([Type.Literal('previous'), Type.Literal('none')])),
  // The segment filter (empty = any) and the sources table's grouping, kept by every link of the page.
  source: Type.Optional(Type.String({ maxLength: 255 })),
  utm_campaign: Type.Optional(Type.String({ maxLength: 255 })),
  device: Type.Optional(Type.String({ maxLength: 255 })),
  by: Type.Optional(Type.Union([Type.Literal('source'), Type.Literal('utm_campaign'), Type.Literal('device')])),
});

/**
 * The page's window: the JSON API's parser (stats/window.ts parseFrame), so the page refuses
 * exactly what the API refuses; its messages go where the two forms show them: the day count's
 * under the days form, the rest under the range form (a range with a day count, under `to`).
 */
function pageFrame(q: { timeframe?: string; from?: string; to?: string }, now: Date) {
  const range = { from: q.from?.trim() ?? '', to: q.to?.trim() ?? '' };
  const parsed = parseFrame(q, now);
  if (parsed.ok) return { frame: parsed.frame, range, daysError: null, rangeErrors: null };
  if (q.from === undefined && q.to === undefined) return { frame: null, range, daysError: parsed.errors.timeframe?.[0] ?? null, rangeErrors: null };
  const { timeframe, ...rangeErrors } = parsed.errors;
  return { frame: null, range, daysError: null, rangeErrors: timeframe ? { to: timeframe } : rangeErrors };
}

/**
 * The shop owner's app pages under /app (web session; see the pages in services/dashboard/docs/api.md):
 * chatbot list, analytics, insights, conversation, live view. Every number comes from the
 * statistics service the JSON API answers from. A guest is sent to /login; an unknown or
 * another account's id gets the 404 page (route config `page`, error-handler.ts).
 */
export const appPageRoutes: FastifyPluginAsyncTypebox<{
  deps: DashboardDeps; stats: StatsService; conversations: ConversationRepository; visitorEvents: VisitorEventRepository;
}> = async (app, { deps, stats, conversations, visitorEvents }) => {
  const config = { auth: 'session' as const, page: true };
  const schema = <E extends object = object>(summary: string, extra?: E) => ({
    tags: ['pages'], summary, security: SESSION_SECURITY, ...(extra as E),
    response: { 200: Page, 302: Redirect, ...errorResponses(401, 404, 422, 500) },
  });
  /** The account's chatbot list and the named one's name and settings; 404 when it is not the account's. */
  const chatbotPage = async (accountId: string, chatbotId: string) => {
    const rows = await deps.repos.chatbots.listForAccount(accountId);
    const row = rows.find((c) => c.id === chatbotId);
    if (!row) throw Errors.notFound();
    const all: ChatbotChoice[] = rows.map(chatbotChoice);
    return { all, current: all.find((c) => c.id === chatbotId)!, holdoutPercent: row.holdoutPercent, currency: row.displayCurrency };
  };
  const ids = { params: Type.Object({ id: Uuid }) };

  app.get('/', { config: { auth: 'none', page: true }, schema: { tags: ['pages'], summary: 'The app for a session, else the log-in page', response: { 302: Redirect } } },
    async (req, reply) => {
      const id = readSessionCookie(req);
      const session = id ? await deps.repos.sessions.resolve(id, deps.clock()) : null;
      return reply.redirect(session ? '/app' : '/login', 302);
    });

  app.get('/app', { config, schema: schema('Chatbot list') }, async (req, reply) => {
    const { accountId } = principalOf(req);
    const rows = await deps.repos.chatbots.listForAccount(accountId);
    const now = deps.clock();
    // The 24-hour activity and every chatbot's window figures, all side by side.
    const [events, figures] = await Promise.all([stats.eventsLastDay(accountId, rows.map((r) => r.id)), accountFigures(stats, accountId, rows.map((r) => r.id), now)]);
    return sendAppPage(reply, {
      title: 'Chatbots',
      chatbots: rows.map(chatbotChoice),
      body: chatbotListBody(rows.map((r) => ({ ...presentChatbot(r, now), events24h: events.get(r.id) ?? 0, figures: figures.get(r.id)! })), accountTotals(figures.values())),
    });
  });

  app.get('/app/go', {
    config,
    schema: schema('The chatbot switcher: go to a chatbot\'s view', {
      // The analytics page's window and filter come along (the analytics page judges them).
      querystring: Type.Object({ chatbot_id: Uuid, view: Type.Optional(Type.Union(APP_VIEWS.map((v) => Type.Literal(v)))), ...AnalyticsQuery.properties }),
    }),
  }, async (req, reply) => {
    const { chatbot_id: chatbotId, view = 'analytics', ...rest } = req.query;
    await chatbotPage(principalOf(req).accountId, chatbotId);
    // The window (and for analytics the filter) in the form of the view asked for.
    const pairs = Object.entries(rest).filter((kv): kv is [string, string] => typeof kv[1] === 'string' && kv[1] !== '');
    return reply.redirect(`/app/${chatbotId}/${view}${viewQuery(view, pairs)}`, 302);
  });

  // A chatbot's own address (the digest's and older links): its analytics, the query kept.
  app.get('/app/:id', { config, schema: schema("A chatbot's address: redirects to its analytics", { ...ids, querystring: AnalyticsQuery }) }, async (req, reply) => {
    const { current } = await chatbotPage(principalOf(req).accountId, req.params.id);
    const query = new URLSearchParams(Object.entries(req.query).filter((kv): kv is [string, string] => typeof kv[1] === 'string')).toString();
    return reply.redirect(`/app/${current.id}/analytics${query ? `?${query}` : ''}`, 302);
  });

  app.get('/app/:id/analytics', { config, schema: schema('Analytics of one chatbot: the last N days, or from/to', { ...ids, querystring: AnalyticsQuery }) }, async (req, reply) => {
    const { accountId } = principalOf(req);
    const { all, current, holdoutPercent, currency } = await chatbotPage(accountId, req.params.id);
    const action = `/app/${current.id}/analytics`;
    const { frame, range, daysError, rangeErrors } = pageFrame(req.query, deps.clock());
    const compare = req.query.compare !== 'none';
    const segment = segmentOf({ source: req.query.source?.trim(), utm_campaign: req.query.utm_campaign?.trim(), device: req.query.device?.trim() });
    const state = { segment, by: req.query.by ?? DEFAULT_BY };
    const kept = keptPairs(state);
    const windowPairs: [string, string][] = [
      ...(frame === null || typeof frame === 'number' ? [['timeframe', String(frame ?? '')] as [string, string]] : [['from', frame.from], ['to', frame.to]] as [string, string][]),
      ...(compare ? [] : [['compare', 'none'] as [string, string]]),
    ];
    const forms = html`<div class="controlbar" data-controls>${timeframeForm(action, typeof frame === 'number' ? frame : null, daysError, !compare, kept)}${rangeForm(action, range, utcDate(deps.clock()), rangeErrors, !compare, kept)}${filterBar(action, windowPairs, state)}</div>`;
    const viewFrame = (view: AppView) => ({ chatbots: all, current: { chatbotId: current.id, view, keep: [...windowPairs.filter(([, v]) => v !== ''), ...kept] } });
    if (frame === null) {
      return sendAppPage(reply, { title: `${current.name}: analytics`, ...viewFrame('analytics'), body: html`<h1>${current.name}</h1>${forms}` }, 422);
    }
    // One window for every block, and its previous period from the same "now". The ClickHouse
    // statistics first, the longest first: PostgreSQL's overview runs on this thread (PGlite) and
    // would otherwise delay their start. Each block's two windows run side by side.
    const asked = { account: accountId, chatbot: current.id, frame, at: deps.clock(), segment };
    const both = <S extends AnyStatistic>(s: S, extra?: ExtraOf<S>): Promise<Answer<S> & { previous: Answer<S> | null }> =>
      compare ? stats.compared(s, { ...asked, extra }) : stats.answer(s, { ...asked, extra }).then((body) => ({ ...body, previous: null }));
    const [p, ts, c, e, popup, bySource, o, setAside, liftAnswer, recon, hourly] = await Promise.all([
      both(purchases), both(timeseries), both(cart), both(engagement), both(popupMetrics),
      stats.answer(sources, { ...asked, extra: { by: state.by } }), both(overview), stats.answer(setAsidePurchases, { ...asked, segment: undefined }),
      // Only a chatbot with a holdout has a lift to lead with.
      holdoutPercent > 0 ? stats.answer(lift, asked) : undefined,
      stats.answer(reconciliation, { ...asked, segment: undefined }),
      // "24 hours" is drawn by hour: two daily points say nothing.
      frame === 1 ? both(timeseries, { bucket: 'hour' }) : undefined,
    ]);
    const nothing = (x: { engagement: { total_users: number }; popup: { conversations: { total: number } }; purchases: { total_users_purchased: number } }) =>
      x.engagement.total_users === 0 && x.popup.conversations.total === 0 && x.purchases.total_users_purchased === 0;
    if (nothing({ engagement: e, popup, purchases: p }) && (!compare || nothing({ engagement: e.previous!, popup: popup.previous!, purchases: p.previous! }))
      // Purchases set aside and the shop's own orders are data arriving too: not a chatbot to set up.
      && setAside.total === 0 && recon.matched + recon.tracker_only + recon.shop_only === 0
      && !((await stats.eventsLastDay(accountId, [current.id])).get(current.id))) {
      return sendAppPage(reply, { title: `${current.name}: analytics`, ...viewFrame('analytics'), body: html`<h1>${current.name}</h1>${setupSteps(current.id)}${forms}` });
    }
    const downloads = csvLinks(current.id, frame, kept);
    const previous = compare
      ? { overview: o.previous!, engagement: e.previous!, popup: popup.previous!, purchases: p.previous!, timeseries: ts.previous!, cart: c.previous! }
      : null;
    return sendAppPage(reply, {
      title: `${current.name}: analytics`, ...viewFrame('analytics'), scripts: ['uplot.min.js'], styles: ['uplot.min.css'],
      body: html`<h1>${current.name}</h1>${analyticsBody({ overview: o, engagement: e, popup, purchases: p, timeseries: ts, cart: c, setAside, lift: liftAnswer, reconciliation: recon, chatbotId: current.id }, {
        action, frame, downloads, previous, kept, currency, hourly, today: utcDate(deps.clock()), sources: sourcesSection(action, windowPairs, state, bySource, moneyIn(currency), downloads('sources', 'Sources')),
        headline: headlineRow({ purchases: p, engagement: e, popup, timeseries: ts }, previous, utcDate(deps.clock()), moneyIn(currency)), controls: forms,
      })}`,
    });
  });

  app.get('/app/:id/insights', { config, schema: schema('Conversation insights of one chatbot', { ...ids, querystring: TimeframeQuery }) }, async (req, reply) => {
    const { accountId } = principalOf(req);
    const { all, current, currency } = await chatbotPage(accountId, req.params.id);
    const timeframe = req.query.timeframe?.trim() || DEFAULT_INSIGHTS_TIMEFRAME;
    const action = `/app/${current.id}/insights`;
    const page = { title: `${current.name}: insights`, chatbots: all, current: { chatbotId: current.id, view: 'insights' as const, keep: analyticsPairsOf(timeframe) } };
    try {
      const report = await stats.answer(conversationInsights, { account: accountId, chatbot: current.id, frame: timeframe });
      const csv = `/api/dashboard/analytics/stats/conversation-insights?${new URLSearchParams({ chatbot_id: current.id, timeframe, format: 'csv' })}`;
      const download = html`<nav class="downloads" aria-label="Download as CSV"><a class="button secondary" href="${csv}" download data-csv="conversation-insights">Download CSV<span class="sr-only"> of this report</span></a></nav>`;
      return sendAppPage(reply, { ...page, body: html`<h1>${current.name}</h1>${insightsForm(action, timeframe, null)}${download}${insightsBody(report, currency)}` });
    } catch (err) {
      if (!(err instanceof DashboardError) || err.statusCode !== 422) throw err;
      const message = err.errors?.timeframe?.[0] ?? err.message;
      return sendAppPage(reply, { ...page, body: html`<h1>${current.name}</h1>${insightsForm(action, timeframe, message)}` }, 422);
    }
  });

  app.get('/app/:chatbotId/conversations/:conversationId', {
    config,
    schema: schema('One conversation: messages in order, its analysis and the visitor\'s events', { params: Type.Object({ chatbotId: Uuid, conversationId: Uuid }) }),
  }, async (req, reply) => {
    const { accountId } = principalOf(req);
    const { all, current, currency } = await chatbotPage(accountId, req.params.chatbotId);
    const conversation = await conversations.findForAccount(accountId, current.id, req.params.conversationId);
    if (!conversation) throw Errors.notFound();
    // The chatbot and token come from the account's own conversation (found above), never from the request.
    const token = conversation.visitorToken;
    const lastAt = conversation.messages.at(-1)?.createdAt ?? conversation.startedAt;
    const read = token
      ? await visitorEvents.aroundConversation({ chatbotId: conversation.chatbotId, visitorToken: token, from: conversation.startedAt, to: lastAt })
      : null;
    return sendAppPage(reply, {
      title: `Conversation · ${current.name}`, chatbots: all, current: { chatbotId: current.id, view: 'insights' },
      body: html`<nav class="crumbs" aria-label="Breadcrumb"><a href="/app/${current.id}/insights">${current.name}: insights</a></nav>
<h1>Conversation</h1>${conversationBody(conversation)}${visitorEventsBody(token, read, currency)}`,
    });
  });

  app.get('/app/:id/live', { config, schema: schema('Live view: events per minute, refreshing', ids) }, async (req, reply) => {
    const { accountId } = principalOf(req);
    const { all, current } = await chatbotPage(accountId, req.params.id);
    const live = await stats.answer(liveEvents, { account: accountId, chatbot: current.id });
    return sendAppPage(reply, {
      title: `${current.name}: live`, chatbots: all, current: { chatbotId: current.id, view: 'live' }, scripts: ['uplot.min.js'], styles: ['uplot.min.css'],
      body: html`<h1>${current.name}: live</h1>${liveBody(current.id, live.minutes, live.bot_requests)}`,
    });
  });
};
