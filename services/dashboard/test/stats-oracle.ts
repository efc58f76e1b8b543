/**
 * The ORACLE: the statistics definitions in services/dashboard/docs/statistics.md written as plainly as possible in TypeScript, over the generated
 * rows, with no SQL and no shared code with the implementation except the rounding rule
 * (numbers.ts, itself unit-tested). Property tests compare every endpoint with it.
 */
import type { StoredEvent } from '@chatlytics/events';
import { parseChTime, type GeneratedConversation } from '@chatlytics/testkit';
import { percent, ratio, round2 } from '../src/stats/numbers.js';

export interface Ev { id: string; event: string; token: string; at: number; row: StoredEvent }

const DAY_MS = 86_400_000;
/**
 * The retry rule (see the statistics definitions in services/dashboard/docs/statistics.md): a copy in W of an event_id that was
 * also received in the RETRY_LOOKBACK before W is a retried beacon and does not count; an
 * original older than that is not looked for. Written out here, not imported, so that the
 * oracle cannot silently follow a change of the implementation's constant.
 */
const RETRY_LOOKBACK_MS = DAY_MS;

const inWindow = (at: number, from: number, to: number) => at >= from && at <= to;

/**
 * Each event_id once, as its earliest copy received in [lo, hi]; only this chatbot's events.
 * Bot rows (is_bot) are not there at all for any statistic.
 */
function earliestCopies(events: readonly StoredEvent[], chatbotId: string, lo: number, hi: number): Ev[] {
  const first = new Map<string, Ev>();
  for (const row of events) {
    if (row.chatbot_id !== chatbotId || row.is_bot === true) continue;
    const at = parseChTime(row.received_at);
    if (!inWindow(at, lo, hi)) continue;
    const seen = first.get(row.event_id);
    if (!seen || at < seen.at) first.set(row.event_id, { id: row.event_id, event: row.event, token: row.token, at, row });
  }
  return [...first.values()];
}

/** The events that count in W: earliest copy within [from − lookback, to], and that copy in W. */
export function windowEvents(events: readonly StoredEvent[], chatbotId: string, from: number, to: number): Ev[] {
  return earliestCopies(events, chatbotId, from - RETRY_LOOKBACK_MS, to).filter((e) => e.at >= from);
}

export const tokensOf = (evs: Ev[], event: string) => new Set(evs.filter((e) => e.event === event).map((e) => e.token));
const intersect = (a: Set<string>, b: Set<string>) => new Set([...a].filter((x) => b.has(x)));

export function oracleEngagement(events: readonly StoredEvent[], chatbotId: string, from: number, to: number) {
  const w = windowEvents(events, chatbotId, from, to);
  const v = tokensOf(w, 'visitor');
  const approached = intersect(v, tokensOf(w, 'popup_displayed')).size;
  const opened = intersect(v, tokensOf(w, 'bot_open')).size;
  const chatted = intersect(v, tokensOf(w, 'convo_started')).size;
  return {
    total_users: v.size,
    total_users_approached: approached,
    total_users_opened: opened,
    total_users_chatted: chatted,
    approached_ratio: percent(approached, v.size),
    opened_ratio: percent(opened, v.size),
    chatted_ratio: percent(chatted, v.size),
  };
}

export function oraclePopupMetrics(events: readonly StoredEvent[], chatbotId: string, from: number, to: number) {
  const w = windowEvents(events, chatbotId, from, to);
  const rows = new Map<string, { displayed: number; opened: number }>();
  for (const e of w) {
    if (e.event !== 'popup_displayed' && e.event !== 'popup_opened') continue;
    const version = e.row.popup_version === '' ? 'unknown' : e.row.popup_version;
    const r = rows.get(version) ?? { displayed: 0, opened: 0 };
    if (e.event === 'popup_displayed') r.displayed++;
    else r.opened++;
    rows.set(version, r);
  }
  const convos = w.filter((e) => e.event === 'convo_started');
  const fromPopup = convos.filter((e) => e.row.open_way === 'popup').length;
  return {
    metrics: [...rows.entries()]
      .sort(([a], [b]) => Buffer.compare(Buffer.from(a), Buffer.from(b)))
      .map(([version, r]) => ({
        popup_version: version,
        popup_displayed_count: r.displayed,
        popup_opened_count: r.opened,
        open_rate: percent(r.opened, r.displayed),
      })),
    conversations: {
      total: convos.length,
      from_popup: fromPopup,
      from_chat_button: convos.filter((e) => e.row.open_way === 'chat_button').length,
      popup_ratio: percent(fromPopup, convos.length),
    },
  };
}

/**
 * The purchases that count in the window (its events `w`): each purchase once at its earliest
 * copy, and one with an order number only when it is that order's first purchase ever.
 */
export function countedPurchases(events: readonly StoredEvent[], chatbotId: string, w: Ev[]): Ev[] {
  // Orders are exact over all history: per order number, the chatbot's earliest purchase row
  // ever (ties: smallest event_id) is the order's first purchase; any later one, or a retried
  // copy of the first, is not counted again.
  const orderFirst = new Map<string, { at: number; id: string }>();
  for (const row of events) {
    if (row.chatbot_id !== chatbotId || row.is_bot === true || row.event !== 'purchase' || row.order_num === '') continue;
    const at = parseChTime(row.received_at);
    const seen = orderFirst.get(row.order_num);
    if (!seen || at < seen.at || (at === seen.at && row.event_id < seen.id)) orderFirst.set(row.order_num, { at, id: row.event_id });
  }
  return w.filter((p) => {
    if (p.event !== 'purchase') return false;
    if (p.row.order_num === '') return true;
    const first = orderFirst.get(p.row.order_num)!;
    return first.at === p.at && first.id === p.id;
  });
}

export function oraclePurchases(events: readonly StoredEvent[], chatbotId: string, from: number, to: number, abTestEnabled: boolean) {
  const w = windowEvents(events, chatbotId, from, to);
  const v = tokensOf(w, 'visitor');
  const chatted = intersect(v, tokensOf(w, 'convo_started'));
  const firstChat = new Map<string, number>();
  for (const e of w) {
    if (e.event === 'convo_started' && (firstChat.get(e.token) ?? Infinity) > e.at) firstChat.set(e.token, e.at);
  }
  const P = countedPurchases(events, chatbotId, w).filter((p) => v.has(p.token));
  const afterChat = (p: Ev) => firstChat.has(p.token) && p.at > firstChat.get(p.token)!;
  const revenue = (ps: Ev[]) => ps.reduce((s, p) => s + (p.row.total_value_base ?? 0), 0);
  const after = P.filter(afterChat);
  const other = P.filter((p) => !afterChat(p));
  const purchased = new Set(P.map((p) => p.token)).size;
  const chattedPurchased = new Set(after.map((p) => p.token)).size;

  const result: Record<string, unknown> = {
    // The default revenue source, named in every answer (docs/statistics.md, "Revenue source").
    attribution: { source: 'tracker', window_days: null },
    total_users: v.size,
    total_users_chatted: chatted.size,
    total_users_purchased: purchased,
    total_users_chatted_purchased: chattedPurchased,
    total_revenue_purchased: round2(revenue(P)),
    total_revenue_chatted_purchased: round2(revenue(after)),
    conversion_rate_with_chat: percent(chattedPurchased, chatted.size),
    conversion_rate_without_chat: percent(purchased - chattedPurchased, v.size),
    aov_with_chat: ratio(revenue(after), after.length),
    aov_without_chat: ratio(revenue(other), other.length),
  };
  if (abTestEnabled) {
    const group = (g: 'control' | 'test') => {
      const vg = new Set(w.filter((e) => e.row.ab_group === g && v.has(e.token)).map((e) => e.token));
      const orders = P.filter((p) => vg.has(p.token));
      const customers = new Set(orders.map((p) => p.token)).size;
      return {
        visitors: vg.size,
        orders: orders.length,
        purchasers: customers,
        revenue: revenue(orders),
        conversion_rate: percent(customers, vg.size),
        aov: ratio(revenue(orders), orders.length),
        arpu: ratio(revenue(orders), vg.size),
      };
    };
    result.ab_test = { control: group('control'), test: group('test') };
  }
  return result;
}

const HOUR = 3_600_000;
const durationOf = (c: GeneratedConversation) =>
  c.messages.length < 2 ? 0 : Math.max(...c.messages.map((m) => m.createdAt)) - Math.min(...c.messages.map((m) => m.createdAt));

export function oracleOverview(conversations: readonly GeneratedConversation[], chatbotId: string, from: number, to: number) {
  const mine = conversations.filter((c) => c.chatbotId === chatbotId);
  const active = mine.filter((c) => c.messages.some((m) => inWindow(m.createdAt, from, to)));
  const aiMessages = mine.flatMap((c) => c.messages).filter((m) => m.role === 'assistant' && inWindow(m.createdAt, from, to)).length;
  const savedMs = active.reduce((s, c) => s + Math.min(durationOf(c), 1.5 * HOUR), 0);
  return { total_conversations: active.length, total_ai_messages: aiMessages, saved_hours: round2(savedMs / HOUR).toFixed(2) };
}

function ranked(list: GeneratedConversation[], pick: (c: GeneratedConversation) => string[], link: (id: string) => string) {
  // The report's conversations oldest first: the first spelling is the earliest one.
  const chronological = [...list].sort((a, b) => a.startedAt - b.startedAt);
  const counts = new Map<string, { item: string; count: number; conversations: string[] }>();
  for (const c of chronological) {
    const named = new Set<string>();
    for (const raw of pick(c)) {
      const key = raw.trim().toLowerCase();
      if (!key || named.has(key)) continue;
      named.add(key);
      const entry = counts.get(key) ?? { item: raw.trim(), count: 0, conversations: [] };
      entry.count++;
      entry.conversations.push(link(c.id));
      counts.set(key, entry);
    }
  }
  return [...counts.values()]
    .sort((a, b) => b.count - a.count || Buffer.compare(Buffer.from(a.item), Buffer.from(b.item)))
    .slice(0, 10);
}

const RANKED_LISTS = ['most_clicked_products', 'most_talked_about_products', 'most_frequent_intents', 'most_common_complaints', 'missing_information_overview'];

/**
 * The insights body without the money revenue by topic adds to it (its ranked items' visitors,
 * revenue and conversion_rate, and missing_information_cost): what oracleInsights computes. The
 * money is checked against the topics statistic's answers, whose own oracle is stats-cart-oracle.ts.
 */
export function insightsAnalysis(body: Record<string, any>) {
  const { missing_information_cost: _cost, ...rest } = body;
  return Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, RANKED_LISTS.includes(k)
    ? (v as Record<string, unknown>[]).map(({ visitors: _v, revenue: _r, conversion_rate: _c, ...item }) => item) : v]));
}

export function oracleInsights(
  conversations: readonly GeneratedConversation[], events: readonly StoredEvent[],
  chatbotId: string, from: number, to: number, appUrl: string,
) {
  const report = conversations
    .filter((c) => c.chatbotId === chatbotId && c.analysis && inWindow(c.startedAt, from, to))
    .sort((a, b) => b.startedAt - a.startedAt)
    .slice(0, 100);
  const n = report.length;
  const link = (id: string) => `${appUrl}/app/${chatbotId}/conversations/${id}`;
  const a = (c: GeneratedConversation) => c.analysis!;
  const share = (test: (c: GeneratedConversation) => boolean) => percent(report.filter(test).length, n);
  const w = windowEvents(events, chatbotId, from, to);
  const count = (event: string) => w.filter((e) => e.event === event).length;
  const conversions = report.filter((c) => a(c).converted).length;
  const minutes = report.reduce((s, c) => s + Math.min(durationOf(c), HOUR), 0) / 60_000;
  return {
    most_clicked_products: ranked(report, (c) => a(c).clickedProducts, link),
    most_talked_about_products: ranked(report, (c) => a(c).talkedAboutProducts, link),
    most_frequent_intents: ranked(report, (c) => a(c).intents, link),
    most_common_complaints: ranked(report, (c) => a(c).complaints, link),
    mood_percentages: { happy: share((c) => a(c).mood === 'happy'), angry: share((c) => a(c).mood === 'angry'), neutral: share((c) => a(c).mood === 'neutral') },
    outcome_percentages: { success: share((c) => a(c).outcome === 'success'), fail: share((c) => a(c).outcome === 'fail'), neutral: share((c) => a(c).outcome === 'neutral') },
    human_intervention_needed_percentage: share((c) => a(c).humanInterventionNeeded),
    missing_information_overview: ranked(report, (c) => a(c).missingInformation, link),
    total_conversations_analyzed: n,
    total_click_throughs: count('click_through'),
    chat_conversion: { ratio: percent(conversions, n), total_conversions: conversions, total_conversations: n },
    reactions: { likes: count('message_like'), dislikes: count('message_dislike') },
    average_conversation_duration_minutes: n === 0 ? 0 : round2(minutes / n),
  };
}

/** The series' keys: a UTC day 'YYYY-MM-DD', or (bucket=hour) the start of a UTC hour 'YYYY-MM-DDTHH:00:00Z'. */
export const dayKey = (at: number) => new Date(at).toISOString().slice(0, 10);
export const hourKey = (at: number) => `${new Date(at).toISOString().slice(0, 13)}:00:00Z`;

/** timeseries' visitors and conversations per UTC day (or hour: `keyOf`): each counting event in the day (hour) of its earliest copy. */
export function oracleDailyCounts(events: readonly StoredEvent[], chatbotId: string, from: number, to: number, keyOf = dayKey) {
  const days = new Map<string, { visitors: Set<string>; conversations: number }>();
  for (const e of windowEvents(events, chatbotId, from, to)) {
    const day = keyOf(e.at);
    const d = days.get(day) ?? { visitors: new Set<string>(), conversations: 0 };
    if (e.event === 'visitor') d.visitors.add(e.token);
    if (e.event === 'convo_started') d.conversations += 1;
    days.set(day, d);
  }
  return (day: string) => ({ visitors: days.get(day)?.visitors.size ?? 0, conversations: days.get(day)?.conversations ?? 0 });
}

/**
 * timeseries, whole: per UTC day (or hour: `keyOf`) of the window that has any of them, the visitors and
 * conversations of oracleDailyCounts, and the purchases the purchases statistic counts (token in
 * V over the whole window) on the day of their earliest copy, with their revenue (2 decimals).
 */
export function oracleTimeseries(events: readonly StoredEvent[], chatbotId: string, from: number, to: number, keyOf = dayKey) {
  const w = windowEvents(events, chatbotId, from, to);
  const v = tokensOf(w, 'visitor');
  const counts = oracleDailyCounts(events, chatbotId, from, to, keyOf);
  const dayOf = keyOf;
  const bought = new Map<string, { purchases: number; revenue: number }>();
  for (const p of countedPurchases(events, chatbotId, w).filter((e) => v.has(e.token))) {
    const d = bought.get(dayOf(p.at)) ?? { purchases: 0, revenue: 0 };
    d.purchases += 1;
    d.revenue += p.row.total_value_base ?? 0;
    bought.set(dayOf(p.at), d);
  }
  return (day: string) => ({ ...counts(day), purchases: bought.get(day)?.purchases ?? 0, revenue: round2(bought.get(day)?.revenue ?? 0) });
}
