import t from 'tap';
import { deviceOf, normalizeEvent, referrerHost, trafficSource, validateTrackingBody, SEGMENT_VALUE_MAX_LENGTH } from '../src/index.js';

t.test('source: utm_source, else the referrer host without www., else direct', async (t) => {
  t.same(trafficSource('https://shop.example/p?utm_source=newsletter&utm_medium=email&utm_campaign=spring', 'https://www.google.com/search?q=x'),
    { source: 'newsletter', utm_medium: 'email', utm_campaign: 'spring' }, 'utm_source wins over the referrer');
  t.same(trafficSource('https://shop.example/p', 'https://www.google.com/search?q=x'), { source: 'google.com', utm_medium: '', utm_campaign: '' });
  t.same(trafficSource('https://shop.example/p', 'https://WWW.Facebook.com/'), { source: 'facebook.com', utm_medium: '', utm_campaign: '' }, 'hosts are lower case');
  t.same(trafficSource('https://shop.example/p', 'https://m.www.example.org/'), { source: 'm.www.example.org', utm_medium: '', utm_campaign: '' }, 'only a leading www.');
  t.same(trafficSource('https://shop.example/p', ''), { source: 'direct', utm_medium: '', utm_campaign: '' });
  t.same(trafficSource(undefined, undefined), { source: 'direct', utm_medium: '', utm_campaign: '' });
  t.same(trafficSource('not a url', 'not a url either'), { source: 'direct', utm_medium: '', utm_campaign: '' }, 'unparsable: direct');
  t.same(trafficSource('https://shop.example/?utm_source=%20&utm_campaign=x', 'android-app://com.google.android.gm/'),
    { source: 'direct', utm_medium: '', utm_campaign: 'x' }, 'a blank utm_source and a non-web referrer give direct');
  t.same(trafficSource('https://shop.example/?utm_source=Google+Ads', ''), { source: 'Google Ads', utm_medium: '', utm_campaign: '' }, 'decoded, case kept');
  t.equal(trafficSource(`https://shop.example/?utm_campaign=${'x'.repeat(400)}`, '').utm_campaign.length, SEGMENT_VALUE_MAX_LENGTH, 'bounded');
  t.equal(referrerHost('http://www.example.com:8080/a'), 'example.com');
});

t.test('device from the User-Agent', async (t) => {
  const cases: [string, string][] = [
    ['Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36', 'desktop'],
    ['Mozilla/5.0 (Macintosh; Intel Mac OS X 14_4) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15', 'desktop'],
    ['Mozilla/5.0 (X11; Linux x86_64; rv:126.0) Gecko/20100101 Firefox/126.0', 'desktop'],
    ['Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1', 'mobile'],
    ['Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36', 'mobile'],
    ['Mozilla/5.0 (iPad; CPU OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1', 'tablet'],
    ['Mozilla/5.0 (Linux; Android 13; SM-X700) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36', 'tablet'],
    ['Mozilla/5.0 (Linux; Android 9; KFTRWI) AppleWebKit/537.36 (KHTML, like Gecko) Silk/124.1.1 like Chrome/124.0.0.0 Safari/537.36', 'tablet'],
    ['', 'desktop'],
  ];
  for (const [ua, device] of cases) t.equal(deviceOf(ua), device, ua || '(empty)');
});

t.test('normalizeEvent: a visitor event stores its segment; other events the device only', async (t) => {
  const log = { warn() {} };
  const ua = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) Mobile/15E148';
  const body = (event: string) => validateTrackingBody({
    event, token: 'tok_12345678', data: { url: 'https://shop.example/?utm_source=ig&utm_campaign=summer', referrer: 'https://www.bing.com/' },
  });
  const visitor = body('visitor');
  const click = body('click_through');
  if (!visitor.ok || !click.ok) throw new Error('invalid body');
  const v = normalizeEvent(visitor.value, { receivedAt: new Date(), userAgentHeader: ua, log });
  t.match(v, { source: 'ig', utm_medium: '', utm_campaign: 'summer', device: 'mobile' });
  const c = normalizeEvent(click.value, { receivedAt: new Date(), userAgentHeader: ua, log });
  t.match(c, { source: '', utm_medium: '', utm_campaign: '', device: 'mobile' });
  const long = validateTrackingBody({ event: 'visitor', token: 'tok_12345678', data: { referrer: 'x'.repeat(2049) } });
  t.notOk(long.ok, 'the referrer is bounded like the URL');
});
