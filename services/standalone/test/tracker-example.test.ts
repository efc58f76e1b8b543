import t from 'tap';
import Fastify from 'fastify';
import { EXAMPLE_CHATBOT_ID, trackerExample } from '../src/tracker-example.js';

t.test('GET /tracker/example: the stub, the script tag, the chatbot id escaped', async (t) => {
  const app = Fastify({ logger: false });
  await app.register(trackerExample);
  t.teardown(() => app.close());
  const res = await app.inject({ method: 'GET', url: '/tracker/example' });
  t.equal(res.statusCode, 200);
  t.match(res.headers['content-type'], /^text\/html/);
  t.match(res.body, /window\.chatlytics=window\.chatlytics\|\|\{q:\[\]/);
  t.match(res.body, `<script async src="/tracker.js" data-chatbot-id="${EXAMPLE_CHATBOT_ID}"`);
  const other = await app.inject({ method: 'GET', url: '/tracker/example?chatbot_id=%22%3E%3Cscript%3Ealert(1)%3C/script%3E' });
  t.notMatch(other.body, /"><script>alert/);
  t.match(other.body, 'data-chatbot-id="&#34;&#62;&#60;script&#62;alert(1)&#60;/script&#62;"');
});
