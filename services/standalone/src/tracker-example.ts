import type { FastifyInstance } from 'fastify';

/** The chatbot the example page tracks for, unless `?chatbot_id=` names another. */
export const EXAMPLE_CHATBOT_ID = '00000000-0000-4000-8000-00000000e7a1';

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The page a shop would write: the stub, the script tag, and calls to window.chatlytics. */
export function examplePage(chatbotId: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Chatlytics tracker example</title>
<script>window.chatlytics=window.chatlytics||{q:[],track:function(){this.q.push(['track',arguments])},consent:function(){this.q.push(['consent',arguments])}};
chatlytics.track('visitor',{url:location.href});</script>
<script async src="/tracker.js" data-chatbot-id="${escape(chatbotId)}" data-ab-test="true"></script>
</head><body>
<h1>Chatlytics tracker example</h1>
<p>Chatbot <code>${escape(chatbotId)}</code>. Each button tracks one event; they reach the statistics of this chatbot.</p>
<p><button data-event="popup_displayed">popup_displayed</button> <button data-event="bot_open">bot_open</button>
<button data-event="convo_started">convo_started</button> <button data-event="message_sent">message_sent</button>
<button data-event="purchase">purchase (10 EUR)</button></p>
<p><button id="grant">consent(true)</button> <button id="deny">consent(false)</button> <button id="flush">flush()</button></p>
<p>Token: <code id="token"></code>, A/B group: <code id="group"></code></p>
<script>
document.addEventListener('click', function (e) {
  var t = e.target, name = t.getAttribute && t.getAttribute('data-event');
  if (name) chatlytics.track(name, name === 'purchase' ? { orderNum: 'example-' + Date.now(), items: [{ item_id: 'p1', value: 10, currency: 'EUR' }] } : { open_way: 'chat_button' });
  if (t.id === 'grant') chatlytics.consent(true);
  if (t.id === 'deny') chatlytics.consent(false);
  if (t.id === 'flush') chatlytics.flush();
  show();
});
function show() {
  if (!chatlytics.flush) return setTimeout(show, 100);
  document.getElementById('token').textContent = String(chatlytics.token);
  document.getElementById('group').textContent = String(chatlytics.abGroup);
}
show();
</script>
</body></html>
`;
}

/** GET /tracker/example: a working page that embeds /tracker.js as a shop would. */
export async function trackerExample(app: FastifyInstance): Promise<void> {
  app.get('/tracker/example', {
    schema: {
      tags: ['tracking'],
      summary: 'An example page embedding the tracker',
      querystring: { type: 'object', properties: { chatbot_id: { type: 'string', maxLength: 512 } } },
      response: { 200: { type: 'string', description: 'HTML' } },
    },
  }, async (request, reply) => {
    const { chatbot_id: chatbotId } = request.query as { chatbot_id?: string };
    return reply.type('text/html; charset=utf-8').send(examplePage(chatbotId || EXAMPLE_CHATBOT_ID));
  });
}
