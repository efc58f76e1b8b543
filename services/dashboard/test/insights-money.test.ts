/**
 * The insights and conversation views write their money in the chatbot's display currency
 * (html/money.ts): each amount is the EUR figure / the currency's rate, and the page says so once.
 */
import t from 'tap';
import { EUR_RATES } from '@chatlytics/events';
import { insightsBody, visitorEventsBody } from '../src/analytics/conversation-views.js';

type InsightsArg = Parameters<typeof insightsBody>[0];

const cents = (v: number) => Math.round(v * 100) / 100;
const amount = (shown: string) => Number(shown.replace(/[^0-9.-]/g, ''));

const ranked = [{ item: 'Boots', count: 3, conversations: [], revenue: 880, conversion_rate: 50, visitors: 4 }];
const report = {
  total_conversations_analyzed: 10, total_click_throughs: 2, chat_conversion: { ratio: 20 }, human_intervention_needed_percentage: 0,
  average_conversation_duration_minutes: 3, reactions: { likes: 1, dislikes: 0 },
  mood_percentages: { happy: 50, neutral: 50, angry: 0 }, outcome_percentages: { success: 50, neutral: 50, fail: 0 },
  most_clicked_products: ranked, most_talked_about_products: ranked, most_frequent_intents: ranked, most_common_complaints: ranked,
  missing_information_overview: ranked,
  missing_information_cost: { abandoned_value: 176, abandoned_carts: 2, items: [{ item: 'boots', abandoned_carts: 2, abandoned_value: 176 }] },
} as unknown as InsightsArg;

t.test('insights in SEK: every amount converted, the conversion said once', async (t) => {
  const body = String(insightsBody(report, 'SEK'));
  const revenues = [...body.matchAll(/data-revenue="([^"]*)"[^>]*>([^<]*) after chat/g)];
  t.equal(revenues.length, 5, 'one per ranked list');
  for (const r of revenues) {
    t.match(r[2], /^kr\u00a0/);
    t.equal(amount(r[2]!), cents(Number(r[1]) / EUR_RATES.SEK), `${r[2]} = ${r[1]} EUR / rate`);
  }
  t.equal(amount(/cost you <strong>([^<]*)</.exec(body)![1]!), cents(176 / EUR_RATES.SEK), '2,000 kronor not known');
  t.equal(body.match(/converted from EUR at fixed rates/g)?.length, 1);
  t.notMatch(body, /€/);
});

t.test('insights in EUR: euros, no conversion line', async (t) => {
  const body = String(insightsBody(report, 'EUR'));
  t.match(body, /€880\.00 after chat/);
  t.notMatch(body, /converted from EUR/);
});

t.test('a visitor\'s purchase in the chatbot\'s currency', async (t) => {
  const purchase = { eventId: 'e1', event: 'purchase', at: new Date('2026-02-01T10:00:00Z'), url: 'https://shop.example/done', popupVersion: '', openWay: '', orderNum: 'A-1', valueEur: 92 };
  const body = String(visitorEventsBody('tok', { events: [purchase], truncated: false }, 'USD'));
  t.match(body, /order A-1 · \$100\.00/);
  t.match(body, /Amounts in USD, converted from EUR at fixed rates/);
  t.notMatch(String(visitorEventsBody('tok', { events: [{ ...purchase, event: 'page_view', valueEur: null }], truncated: false }, 'USD')), /converted from EUR/, 'no amount, no line');
});
