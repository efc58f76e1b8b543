import fc from 'fast-check';
import t from 'tap';
import { ACCEPTED_EVENT_NAMES } from '@chatlytics/events';
import { buildIngest, TOKEN } from './helper.js';

/** Every answer must be one of the documented ones, with the documented body shape. */
function documented(res: { statusCode: number; body: string }): boolean {
  if (![200, 400, 403, 422, 429].includes(res.statusCode)) return false;
  const body = JSON.parse(res.body);
  if (res.statusCode === 200) return body.success === true;
  return body.success === false && typeof body.error?.message === 'string' && 'code' in body.error;
}

const urls = fc.constantFrom('/api/analytics/track', '/api/events/track', '/api/save');
const contentTypes = fc.constantFrom('application/json', 'text/plain;charset=UTF-8', 'application/x-www-form-urlencoded', 'application/octet-stream', 'application/json; charset=latin1', 'multipart/form-data');
const hostileValue = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom('__proto__', 'constructor', 'prototype', null, -1, 1e308, ''),
  fc.string({ unit: 'binary', maxLength: 200 }),
);
const hostileObject = fc.dictionary(fc.oneof(fc.constantFrom('event', 'token', 'e', 'u', 'd', 'data', 'ab_test', '__proto__', 'constructor'), fc.string()), hostileValue);
const nearlyValid = fc.record({
  event: fc.oneof(fc.constantFrom(...ACCEPTED_EVENT_NAMES), hostileValue),
  token: fc.oneof(fc.constant(TOKEN), hostileValue),
  data: fc.oneof(hostileValue, fc.dictionary(fc.constantFrom('items', 'currency', 'orderNum', 'chatbot_id', 'open_way', 'url', 'event_id', '__proto__'), hostileValue)),
  ab_test: hostileValue,
}, { requiredKeys: [] });

t.test('no generated body, bytes or query string yields a 5xx or an undocumented answer', async (t) => {
  const { app, bus } = await buildIngest();
  t.teardown(() => app.close());

  await fc.assert(fc.asyncProperty(urls, contentTypes, fc.oneof(hostileObject, nearlyValid), async (url, type, body) => {
    const payload = type.includes('urlencoded')
      ? new URLSearchParams(Object.entries(body).map(([k, v]): [string, string] => [k, typeof v === 'string' ? v : JSON.stringify(v) ?? ''])).toString()
      : JSON.stringify(body);
    return documented(await app.inject({ method: 'POST', url, headers: { 'content-type': type }, payload }));
  }), { numRuns: 100 });

  await fc.assert(fc.asyncProperty(urls, contentTypes, fc.uint8Array({ maxLength: 2000 }), async (url, type, bytes) =>
    documented(await app.inject({ method: 'POST', url, headers: { 'content-type': type }, payload: Buffer.from(bytes) }))), { numRuns: 150 });

  const queryPart = fc.oneof(fc.string({ unit: 'binary', maxLength: 60 }).map(encodeURIComponent), fc.string({ maxLength: 60 }));
  const query = fc.array(fc.tuple(fc.oneof(fc.constantFrom('e', 'u', 'd', 'ab_test', 'event', 'token', '__proto__', 'd[]'), queryPart), queryPart), { maxLength: 6 })
    .map((pairs) => pairs.map(([k, v]) => `${k}=${v}`).join('&'));
  await fc.assert(fc.asyncProperty(fc.constantFrom('/api/analytics/track', '/api/events/track'), query, async (url, qs) =>
    documented(await app.inject({ method: 'GET', url: `${url}?${qs}` }))), { numRuns: 150 });

  await fc.assert(fc.asyncProperty(fc.constantFrom('/api/analytics/track', '/api/events/track'), hostileObject, async (url, data) =>
    documented(await app.inject({ method: 'GET', url: `${url}?e=visitor&u=${TOKEN}&d=${encodeURIComponent(JSON.stringify(data))}` }))), { numRuns: 100 });

  // Whatever got through is a row the consumer accepts (FakeBus.events() re-validates each one).
  t.doesNotThrow(() => bus.events());
  t.ok(bus.calls.length > 0, 'the generators also produce accepted events');
});
