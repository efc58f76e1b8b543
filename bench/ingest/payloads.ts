/** A realistic mix: mostly page-level events, some funnels, purchases with items; distinct tokens. */
export function payloadMix(n: number): string[] {
  const bodies: string[] = [];
  for (let i = 0; i < n; i++) {
    const token = `bench_${i.toString(36).padStart(6, '0')}${i % 3}`;
    const chatbot_id = `bot-${i % 20}`;
    const url = `https://shop-${i % 20}.example/products/${i % 500}`;
    const r = i % 20;
    let body: object;
    if (r < 8) body = { event: 'visitor', token, data: { chatbot_id, url } };
    else if (r < 11) body = { event: 'popup_displayed', token, data: { chatbot_id, popup_version: `v${i % 3}` } };
    else if (r < 12) body = { event: 'popup_opened', token, data: { chatbot_id, popup_version: `v${i % 3}` } };
    else if (r < 14) body = { event: 'convo_started', token, data: { chatbot_id, open_way: i % 2 ? 'popup' : 'chat_button' } };
    else if (r < 16) body = { event: 'message_sent', token, data: { chatbot_id } };
    else if (r < 18) body = { event: 'added_to_cart', token, data: { chatbot_id, items: [{ item_id: `sku-${i % 300}`, value: 19.9, quantity: 1 }] } };
    else {
      const items = Array.from({ length: 1 + (i % 4) }, (_, k) => ({ item_id: `sku-${(i + k) % 300}`, price: String(9.5 + k), quantity: 1 + (k % 2), currency: k % 2 ? 'USD' : 'EUR' }));
      body = { event: i % 2 ? 'purchase' : 'tracktrans', token, ab_test: true, data: { chatbot_id, orderNum: `order-${i}`, currency: 'EUR', items, url } };
    }
    bodies.push(JSON.stringify(body));
  }
  return bodies;
}
