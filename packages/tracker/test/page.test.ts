import t from 'tap';
import { createTrackerCore, type TrackerOptions } from '../src/index.js';
import { FakeSite } from './fake-env.js';

const OPTS: TrackerOptions = { endpoint: 'https://ingest.test/', chatbotId: 'bot-1' };

t.test('a visitor event carries the page URL and document.referrer; other events do not', async (t) => {
  const site = new FakeSite();
  const page = () => ({ url: 'https://shop.test/p?utm_source=news', referrer: 'https://www.google.com/' });
  const { api } = createTrackerCore(OPTS, site.env({ page }));
  api.track('visitor');
  api.track('visitor', { url: 'https://shop.test/given', referrer: '' });
  api.track('bot_open');
  await api.flush();
  const [visitor, given, other] = site.requests[0].body.events;
  t.match(visitor.data, { url: 'https://shop.test/p?utm_source=news', referrer: 'https://www.google.com/' });
  t.match(given.data, { url: 'https://shop.test/given', referrer: '' }, 'the caller\'s own values win');
  t.notOk('url' in other.data || 'referrer' in other.data);
});

t.test('in a page, the ingest\'s holdout answer is the chatlytics:holdout DOM event (detail: held out or not)', async (t) => {
  const { browserEnv } = await import('../src/index.js');
  const target = new EventTarget();
  const w = Object.assign(target, {
    CustomEvent, navigator: {}, localStorage: undefined, document: { visibilityState: 'visible', referrer: '', addEventListener() {} },
    location: { href: 'https://shop.test/' }, crypto: globalThis.crypto, fetch, AbortSignal, setTimeout,
  });
  const seen: unknown[] = [];
  target.addEventListener('chatlytics:holdout', (e) => seen.push((e as CustomEvent).detail));
  const env = browserEnv(w as unknown as Parameters<typeof browserEnv>[0]);
  env.holdout?.(true);
  env.holdout?.(false);
  t.same(seen, [true, false]);
});
