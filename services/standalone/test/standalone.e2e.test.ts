import t from 'tap';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { exited, start } from './child.js';

// Up to two start-ups of the whole product (engines, migrations): minutes on a loaded machine,
// past tap's default per-file timeout.
t.setTimeout(600_000);

t.test('npm start: one process, embedded engines, health/ready, tracking lands, graceful stop', async (t) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chatlytics-standalone-'));
  t.teardown(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  const s = await start(dataDir, { SQL_API_KEY: 'standalone-test-key-123' });
  t.teardown(() => { if (s.child.exitCode === null) s.child.kill('SIGKILL'); });

  const health = await fetch(`${s.url}/health`);
  t.equal(health.status, 200);
  t.same(await health.json(), { status: 'ok' });

  const ready = await fetch(`${s.url}/ready`);
  const readyBody = await ready.json() as { status: string; stores: Record<string, { status: string }> };
  t.equal(ready.status, 200, JSON.stringify(readyBody));
  for (const store of ['postgres', 'clickhouse', 'bus']) t.equal(readyBody.stores[store]?.status, 'ok', `${store} ready`);

  const track = await fetch(`${s.url}/api/analytics/track`, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ event: 'visitor', token: 'standalone-token-1', data: { chatbot_id: 'bot-standalone' } }),
  });
  t.equal(track.status, 200);
  t.same(await track.json(), { success: true });

  // The event travels bus → consumer → ClickHouse; the data team's endpoint sees it.
  const auth = { 'x-clickhouse-key': 'standalone-test-key-123' };
  let count = '0';
  for (let i = 0; i < 100 && count !== '1'; i++) {
    const r = await fetch(`${s.url}/clickhouse/?query=${encodeURIComponent("SELECT count() FROM events WHERE chatbot_id = 'bot-standalone'")}`, { headers: auth });
    count = (await r.text()).trim();
    if (count !== '1') await new Promise((r) => setTimeout(r, 100));
  }
  t.equal(count, '1', 'the tracked event is queryable in ClickHouse');

  // npm start's consumer coalesces inserts (STANDALONE_CONSUMER_OPTIONS): merge CPU is the ingest's CPU here.
  t.match(s.output(), /"maxAgeMs":750,"minRowsWhenAllWaiting":10000,"msg":"consumer started"/, 'the standalone flush policy is in use');

  const metrics = await (await fetch(`${s.url}/metrics`)).text();
  t.match(metrics, /chatlytics_http_requests_total/);

  const docs = await fetch(`${s.url}/docs/json`);
  t.equal(docs.status, 200);
  const spec = await docs.json() as { paths: Record<string, unknown> };
  t.ok(spec.paths['/api/analytics/track'], 'OpenAPI lists the tracking route');

  // A second process on the same DATA_DIR is refused with a clear message.
  await t.rejects(start(dataDir), /in use by another process/);

  // kill -9, then a restart at once: the DATA_DIR lock dies with its holder.
  s.child.kill('SIGKILL');
  const again = await start(dataDir, { SQL_API_KEY: 'standalone-test-key-123' });
  t.teardown(() => { if (again.child.exitCode === null) again.child.kill('SIGKILL'); });
  t.equal((await fetch(`${again.url}/health`)).status, 200, 'restarted at once after kill -9');

  again.child.kill('SIGTERM');
  t.equal(await exited(again.child), 0, 'SIGTERM drains and exits 0');
  t.notOk(fs.existsSync(path.join(dataDir, '.lock')), 'lock released');
});

t.test('a bad variable stops start-up with one line naming it', async (t) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chatlytics-badenv-'));
  t.teardown(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  const err = await start(dataDir, { PORT: 'eighty' }).then(() => '', (e: Error) => e.message);
  t.match(err, /Invalid environment variable PORT/);
});
