/**
 * The headline row's rules (issue 58): the change notation shared with the weekly digest, the
 * conversion of the visitors who did not chat, and the sparkline.
 */
import t from 'tap';
import { headlineChange } from '../src/html/format.js';
import { conversionWithoutChat, headlines, sparkline } from '../src/analytics/headline-view.js';
import { moneyIn } from '../src/html/money.js';

t.test('headlineChange: percent for counts and money, "new" from a tiny previous value, "—" for two zeros', async (t) => {
  t.same(headlineChange(1100, 1), { kind: 'new', text: 'new' }, 'not +109,900 %');
  t.same(headlineChange(5, 0), { kind: 'new', text: 'new' });
  t.same(headlineChange(0, 0), { kind: 'none', text: '—' });
  t.same(headlineChange(150, 100), { kind: 'up', text: '+50 %' });
  t.same(headlineChange(100, 150), { kind: 'down', text: '−33 %' });
  t.same(headlineChange(1000, 100), { kind: 'up', text: '+900 %' }, 'a tenth is not tiny');
  t.same(headlineChange(1001, 100), { kind: 'new', text: 'new' });
  t.same(headlineChange(0, 7), { kind: 'down', text: '−100 %' });
  t.same(headlineChange(12_345, 12_345), { kind: 'same', text: '±0 %' });
});

const figures = (o: { users: number; chatted: number; bought: number; boughtAfterChat: number; revenue: number; afterChat: number; chats: number }) => ({
  purchases: {
    total_users: o.users, total_users_chatted: o.chatted, total_users_purchased: o.bought, total_users_chatted_purchased: o.boughtAfterChat,
    total_revenue_purchased: o.revenue, total_revenue_chatted_purchased: o.afterChat, conversion_rate_with_chat: o.chatted ? Math.round((o.boughtAfterChat / o.chatted) * 10_000) / 100 : 0,
  },
  engagement: { total_users: o.users },
  popup: { conversations: { total: o.chats } },
  timeseries: { days: [{ date: '2026-02-01', visitors: 10, conversations: 2 }, { date: '2026-02-02', visitors: 20, conversations: 3 }, { date: '2026-02-03', visitors: 1, conversations: 0 }] },
}) as unknown as Parameters<typeof headlines>[0];

t.test('conversion without chat: the buyers who did not chat over the visitors who did not chat', async (t) => {
  const f = figures({ users: 200, chatted: 50, bought: 20, boughtAfterChat: 5, revenue: 1000, afterChat: 400, chats: 60 });
  t.same(conversionWithoutChat(f), { rate: 10, base: 150 }, '15 of 150, not 15 of 200');
  t.same(conversionWithoutChat(figures({ users: 5, chatted: 5, bought: 1, boughtAfterChat: 1, revenue: 0, afterChat: 0, chats: 5 })), { rate: 0, base: 0 }, 'everyone chatted');
});

t.test('the five headlines: values, bases, changes and lines', async (t) => {
  const now = figures({ users: 200, chatted: 50, bought: 20, boughtAfterChat: 5, revenue: 1000, afterChat: 400, chats: 60 });
  const before = figures({ users: 100, chatted: 40, bought: 10, boughtAfterChat: 2, revenue: 500, afterChat: 1, chats: 60 });
  const h = headlines(now, before, '2026-02-03', moneyIn('EUR'));
  t.same(h.map((x) => x.metric), ['revenue_after_chat', 'conversion_with_chat', 'conversion_without_chat', 'visitors', 'chats_started']);
  t.same(h.map((x) => x.value), [400, 10, 10, 200, 60]);
  t.match(h[0].note, '40.00 % of all revenue');
  t.same(h[0].change, { kind: 'new', text: 'new' }, 'revenue after chat from €1: new');
  t.same(h[1].change, { kind: 'up', text: '+5.00 pp' }, 'a rate changes in points');
  t.match(h[2].note, 'of 150 visitors who did not chat');
  t.same(h[3].change, { kind: 'up', text: '+100 %' });
  t.same(h[3].series, [10, 20], "today's partial day left out of the line");
  t.same(headlines(now, null, undefined, moneyIn('EUR'))[3].change, null, 'no comparison, no change');
});

t.test('sparkline: a polyline over the values, nothing for fewer than two', async (t) => {
  t.equal(sparkline([5]).html, '');
  const svg = sparkline([0, 10, 5]).html;
  t.match(svg, /<svg class="spark"[^>]*aria-hidden="true"/);
  t.match(svg, /points="0,22 48,2 96,12"/);
});
