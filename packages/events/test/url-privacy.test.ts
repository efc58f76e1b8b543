import t from 'tap';
import { normalizeEvent, stripPersonalUrl, trafficSource, validateTrackingBody } from '../src/index.js';

t.test('stripPersonalUrl keeps the utm_* parameters and nothing else of the query', async (t) => {
  t.equal(stripPersonalUrl('https://shop.example/p?email=jane.doe%40mail.example&utm_source=nl&utm_campaign=spring'),
    'https://shop.example/p?utm_source=nl&utm_campaign=spring', 'an e-mail parameter is dropped, utm kept in order');
  t.equal(stripPersonalUrl('https://shop.example/p?email=jane.doe@mail.example'), 'https://shop.example/p', 'no utm: no "?"');
  t.equal(stripPersonalUrl('https://shop.example/p?utm_content=jane%40mail.example&utm_source=nl'),
    'https://shop.example/p?utm_source=nl', 'a utm value holding an @ is dropped too');
  t.equal(stripPersonalUrl('https://shop.example/p?UTM_Source=x&utmx=1&utm_=2'), 'https://shop.example/p?UTM_Source=x&utm_=2', 'utm_ prefix, any case');
  t.equal(stripPersonalUrl('https://shop.example/p?utm_source=Google+Ads&a=1&&b'), 'https://shop.example/p?utm_source=Google+Ads', 'encoding kept as sent');
});

t.test('fragments, credentials, malformed and relative URLs', async (t) => {
  t.equal(stripPersonalUrl('https://shop.example/p#token=secret'), 'https://shop.example/p');
  t.equal(stripPersonalUrl('https://shop.example/p?utm_source=a#x?email=a@b.c'), 'https://shop.example/p?utm_source=a', 'a "?" inside the fragment is fragment');
  t.equal(stripPersonalUrl('https://shop.example/p#frag?utm_source=a'), 'https://shop.example/p', 'utm inside a fragment is not a parameter');
  t.equal(stripPersonalUrl('https://jane:pw@shop.example/p'), 'https://shop.example/p', 'credentials dropped');
  t.equal(stripPersonalUrl('not a url?mail=jane@mail.example'), 'not a url', 'unparsable text is cut at "?" too');
  t.equal(stripPersonalUrl('/checkout?email=jane@mail.example&utm_medium=mail'), '/checkout?utm_medium=mail', 'relative');
  t.equal(stripPersonalUrl('https://shop.example/p?utm_source=%E0%A4%A&email=x'), 'https://shop.example/p', 'a malformed escape is dropped');
  t.equal(stripPersonalUrl('https://shop.example/a/b/'), 'https://shop.example/a/b/', 'a URL without query keeps its exact text');
  t.equal(stripPersonalUrl(''), '');
});

t.test('normalizeEvent stores neither column nor raw data with the e-mail; the source still gets its utm values', async (t) => {
  const log = { warn() {} };
  const email = 'jane.doe@mail.example';
  const body = validateTrackingBody({
    event: 'visitor', token: 'tok_12345678',
    data: {
      chatbot_id: 'bot', url: `https://shop.example/p?e=${encodeURIComponent(email)}&utm_source=nl&utm_campaign=spring#${email}`,
      referrer: `https://mail.example/read?to=${email}`,
    },
  });
  if (!body.ok) throw new Error('invalid');
  const row = normalizeEvent(body.value, { receivedAt: new Date('2026-01-01T00:00:00Z'), log });
  t.equal(row.url, 'https://shop.example/p?utm_source=nl&utm_campaign=spring');
  t.notMatch(JSON.stringify(row), /jane/, 'the address appears nowhere in the stored row');
  t.notMatch(JSON.stringify(row), /jane%40/, 'nor encoded');
  t.same(JSON.parse(row.data), { chatbot_id: 'bot', url: row.url, referrer: 'https://mail.example/read' }, 'raw data carries the cleaned values');
  t.same({ source: row.source, utm_medium: row.utm_medium, utm_campaign: row.utm_campaign },
    trafficSource('https://shop.example/p?utm_source=nl&utm_campaign=spring', ''), 'segment from the utm parameters');

  const plain = validateTrackingBody({ event: 'bot_open', token: 'tok_12345678', data: { url: 'https://shop.example/p' } });
  if (!plain.ok) throw new Error('invalid');
  t.equal(normalizeEvent(plain.value, { receivedAt: new Date(), log }).data, plain.value.rawData, 'unchanged raw data is not serialised again');
});
