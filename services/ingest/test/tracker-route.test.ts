import t from 'tap';
import Fastify from 'fastify';
import swagger from '@fastify/swagger';
import { trackerScript } from '@chatlytics/tracker/asset';
import { ingestApp } from '../src/app.js';
import { FakeBus, testConfig } from './helper.js';

t.test('GET /tracker.js: the built script, cacheable, 304 on a matching If-None-Match', async (t) => {
  const app = Fastify({ logger: false });
  await app.register(swagger, { openapi: { info: { title: 'ingest', version: '0' } } });
  await app.register(ingestApp, { config: testConfig(), bus: new FakeBus(), clientHashSecret: 'test-secret-of-enough-length' });
  await app.ready();
  t.teardown(() => app.close());
  const res = await app.inject({ method: 'GET', url: '/tracker.js' });
  t.equal(res.statusCode, 200);
  t.match(res.headers['content-type'], /^text\/javascript/);
  t.match(res.headers['cache-control'], /max-age=\d+/);
  const etag = res.headers.etag as string;
  t.equal(etag, trackerScript().etag);
  t.equal(res.body, trackerScript().code.toString());
  for (const inm of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
    const cached = await app.inject({ method: 'GET', url: '/tracker.js', headers: { 'if-none-match': inm } });
    t.equal(cached.statusCode, 304, inm);
    t.equal(cached.body, '');
    t.equal(cached.headers.etag, etag);
  }
  const stale = await app.inject({ method: 'GET', url: '/tracker.js', headers: { 'if-none-match': '"old"' } });
  t.equal(stale.statusCode, 200);

  const docs = app.swagger() as { paths: Record<string, Record<string, unknown>> };
  t.ok(docs.paths['/tracker.js']?.get, '/tracker.js in the OpenAPI document');
  t.ok(docs.paths['/api/analytics/batch']?.post, 'the batch route in the OpenAPI document');
});
