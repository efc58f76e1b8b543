import t from 'tap';
import { buildIngest, TOKEN } from './helper.js';

// click_through's item_id: the product clicked in the chat, which makes an order "direct" under
// the revenue source 'orders' (services/dashboard/docs/statistics.md). Bounded like an item id.
t.test('click_through with data.item_id: stored in the raw data; longer than 128 characters refused', async (t) => {
  const { app, bus } = await buildIngest();
  t.teardown(() => app.close());
  const post = (item: unknown) => app.inject({ method: 'POST', url: '/api/analytics/track', payload: { event: 'click_through', token: TOKEN, data: { chatbot_id: 'bot-1', item_id: item } } });
  t.equal((await post('p-42')).statusCode, 200);
  t.equal((await post(632910392)).statusCode, 200, 'a numeric product id');
  const [text, num] = bus.events();
  t.same(JSON.parse(text.data).item_id, 'p-42');
  t.same(JSON.parse(num.data).item_id, 632910392);
  const long = await post('x'.repeat(129));
  t.equal(long.statusCode, 422);
  t.ok(Object.keys(long.json().errors).some((k) => k.includes('item_id')), JSON.stringify(long.json().errors));
});
