import t from 'tap';
import type { InjectOptions } from 'fastify';
import { TRACK_BODY_LIMIT, TRACK_ERRORS } from '../src/app.js';
import { buildIngest, metricValue, TOKEN } from './helper.js';

const json = { 'content-type': 'application/json' };

t.test('ANALYTICS_001: malformed JSON, non-object bodies, d that is not JSON of an object, data of the wrong type', async (t) => {
  const { app, bus } = await buildIngest();
  t.teardown(() => app.close());
  const cases: [string, InjectOptions][] = [
    ['malformed JSON', { method: 'POST', url: '/api/analytics/track', headers: json, payload: '{"event": "visitor",' }],
    ['empty JSON body', { method: 'POST', url: '/api/analytics/track', headers: json, payload: '' }],
    ['JSON array', { method: 'POST', url: '/api/events/track', headers: json, payload: '[]' }],
    ['JSON string', { method: 'POST', url: '/api/save', headers: json, payload: '"visitor"' }],
    ['d not JSON (GET)', { method: 'GET', url: `/api/analytics/track?e=visitor&u=${TOKEN}&d=%7Bnope` }],
    ['d a JSON array (GET)', { method: 'GET', url: `/api/events/track?e=visitor&u=${TOKEN}&d=%5B1%5D` }],
    ['d given twice (GET)', { method: 'GET', url: `/api/events/track?e=visitor&u=${TOKEN}&d=%7B%7D&d=%7B%7D` }],
    ['data a string', { method: 'POST', url: '/api/save', payload: { event: 'visitor', token: TOKEN, data: '{"a":1}' } }],
    ['data a number', { method: 'POST', url: '/api/save', payload: { event: 'visitor', token: TOKEN, data: 3 } }],
  ];
  for (const [name, req] of cases) {
    const res = await app.inject(req);
    t.equal(res.statusCode, 400, name);
    t.same(res.json().error, { code: 'ANALYTICS_001', message: TRACK_ERRORS.ANALYTICS_001.message }, name);
    t.type(res.json().errors, 'object', name);
  }
  t.equal(bus.calls.length, 0);
});

t.test('prototype poisoning is rejected with ANALYTICS_001 and never merged', async (t) => {
  const { app, bus } = await buildIngest();
  t.teardown(() => app.close());
  const poisoned = [
    `{"event":"visitor","token":"${TOKEN}","__proto__":{"polluted":true}}`,
    `{"event":"visitor","token":"${TOKEN}","data":{"__proto__":{"polluted":true}}}`,
    `{"event":"visitor","token":"${TOKEN}","data":{"items":[{"constructor":{"prototype":{"polluted":true}}}]}}`,
    `{"event":"visitor","token":"${TOKEN}","data":{"\\u005f_proto__":{"polluted":true}}}`,
  ];
  for (const payload of poisoned) {
    const res = await app.inject({ method: 'POST', url: '/api/analytics/track', headers: json, payload });
    t.equal(res.statusCode, 400, payload);
    t.equal(res.json().error.code, 'ANALYTICS_001');
  }
  const viaD = await app.inject({ method: 'GET', url: `/api/analytics/track?e=visitor&u=${TOKEN}&d=${encodeURIComponent('{"__proto__":{"polluted":true}}')}` });
  t.equal(viaD.statusCode, 400);
  t.equal(viaD.json().error.code, 'ANALYTICS_001');
  // A form field named __proto__ is only ever an own property: harmless, the event is valid.
  const form = await app.inject({
    method: 'POST', url: '/api/save', headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: `e=visitor&u=${TOKEN}&__proto__[polluted]=true&constructor[prototype][polluted]=true`,
  });
  t.equal(form.statusCode, 200);
  t.equal(({} as Record<string, unknown>).polluted, undefined, 'Object.prototype untouched');
  t.equal(bus.calls.length, 1);
});

t.test('ANALYTICS_002: data over 50,000 bytes, or a body over the body limit', async (t) => {
  const { app, bus } = await buildIngest();
  t.teardown(() => app.close());
  const big = await app.inject({ method: 'POST', url: '/api/analytics/track', payload: { event: 'visitor', token: TOKEN, data: { p: 'x'.repeat(50_000) } } });
  t.equal(big.statusCode, 400);
  t.equal(big.json().error.code, 'ANALYTICS_002');
  t.ok(big.json().errors.data);
  const huge = await app.inject({ method: 'POST', url: '/api/analytics/track', headers: json, payload: `{"event":"visitor","token":"${TOKEN}","pad":"${'x'.repeat(TRACK_BODY_LIMIT)}"}` });
  t.equal(huge.statusCode, 400);
  t.equal(huge.json().error.code, 'ANALYTICS_002');
  // The body limit is not the data limit: 50,000 bytes of data escaped as \uXXXX still fit the body.
  const escaped = JSON.stringify({ event: 'visitor', token: TOKEN, data: { p: '€'.repeat(16_000) } }).replace(/€/g, '\\u20ac');
  t.ok(escaped.length > 90_000);
  const fits = await app.inject({ method: 'POST', url: '/api/analytics/track', headers: json, payload: escaped });
  t.equal(fits.statusCode, 200);
  t.equal(bus.calls.length, 1);
});

t.test('ANALYTICS_004 with Retry-After when the bus cannot make the event durable; no internals leak', async (t) => {
  const { app, bus, registry } = await buildIngest();
  t.teardown(() => app.close());
  bus.failure = new Error('broker kafka-3.internal:9092 refused: NOT_ENOUGH_REPLICAS');
  const res = await app.inject({ method: 'POST', url: '/api/analytics/track', payload: { event: 'visitor', token: TOKEN } });
  t.equal(res.statusCode, 503);
  t.equal(res.headers['retry-after'], '5');
  t.same(res.json(), { success: false, error: { code: 'ANALYTICS_004', message: TRACK_ERRORS.ANALYTICS_004.message } });
  t.notMatch(res.body, /kafka-3|REPLICAS/);
  t.equal(await metricValue(registry, 'chatlytics_ingest_events_rejected_total', { reason: 'ANALYTICS_004' }), 1);
  t.equal(await metricValue(registry, 'chatlytics_ingest_events_accepted_total'), 0);
  bus.failure = undefined;
  const retry = await app.inject({ method: 'POST', url: '/api/analytics/track', payload: { event: 'visitor', token: TOKEN } });
  t.equal(retry.statusCode, 200, 'the next request succeeds once the bus is back');
});

t.test('an unexpected failure is a 500 with a fixed message', async (t) => {
  const { app } = await buildIngest({ clock: () => { throw new Error('secret internal detail at /srv/x.ts:12'); } });
  t.teardown(() => app.close());
  const res = await app.inject({ method: 'POST', url: '/api/analytics/track', payload: { event: 'visitor', token: TOKEN } });
  t.equal(res.statusCode, 500);
  t.same(res.json(), { success: false, error: { code: null, message: TRACK_ERRORS.ANALYTICS_008.message } });
});

t.test('metrics: accepted, rejected by reason, published, batch sizes', async (t) => {
  const { app, registry } = await buildIngest();
  t.teardown(() => app.close());
  await app.inject({ method: 'POST', url: '/api/analytics/track', payload: { event: 'visitor', token: TOKEN } });
  await app.inject({ method: 'POST', url: '/api/analytics/track', payload: { event: 'nope', token: TOKEN } });
  await app.inject({ method: 'POST', url: '/api/analytics/track', headers: json, payload: '{' });
  t.equal(await metricValue(registry, 'chatlytics_ingest_events_accepted_total'), 1);
  t.equal(await metricValue(registry, 'chatlytics_ingest_events_published_total'), 1);
  t.equal(await metricValue(registry, 'chatlytics_ingest_events_rejected_total', { reason: 'ANALYTICS_005' }), 1);
  t.equal(await metricValue(registry, 'chatlytics_ingest_events_rejected_total', { reason: 'ANALYTICS_001' }), 1);
  t.equal(await metricValue(registry, 'chatlytics_ingest_publish_batch_size_count'), 1);
});
