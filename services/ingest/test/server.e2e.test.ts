import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { createEmbeddedBus } from '@chatlytics/bus';
import { createLogger } from '@chatlytics/core';
import { decodeStoredEvent } from '@chatlytics/events';
import { TOKEN } from './helper.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/** Waits for the log line announcing the port; a guard against hanging, not a speed assertion. */
function listeningUrl(child: ReturnType<typeof spawn>): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${out}`)), 60_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const m = /"msg":"Server listening at (http:\/\/127\.0\.0\.1:\d+)"/.exec(out);
      if (m) { clearTimeout(timer); resolve(m[1]); }
    });
    child.stderr!.on('data', (chunk: Buffer) => { out += chunk.toString(); });
    child.once('exit', (code) => { clearTimeout(timer); reject(new Error(`server exited ${code}:\n${out}`)); });
  });
}

t.test('the entry point serves tracking, ops and docs, and shuts down gracefully on SIGTERM', async (t) => {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'ingest-server-'));
  t.teardown(() => fs.rm(dataDir, { recursive: true, force: true }));
  const child = spawn(process.execPath, ['--import=tsx', path.join(root, 'services/ingest/src/server.ts')], {
    cwd: root,
    env: { PATH: process.env.PATH, DATA_DIR: dataDir, INGEST_PORT: '0', LOG_LEVEL: 'info', KAFKA_BROKERS: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  t.teardown(() => { if (child.exitCode === null) child.kill('SIGKILL'); });
  const base = await listeningUrl(child);

  const tracked = await fetch(`${base}/api/analytics/track`, {
    method: 'POST', headers: { 'content-type': 'application/json', origin: 'https://shop.test' },
    body: JSON.stringify({ event: 'visitor', token: TOKEN, data: { chatbot_id: 'bot-e2e' } }),
  });
  t.equal(tracked.status, 200);
  t.same(await tracked.json(), { success: true });
  t.equal(tracked.headers.get('access-control-allow-origin'), '*');

  const legacy = await fetch(`${base}/api/events/track?e=bot_open&u=${TOKEN}&d=${encodeURIComponent('{"chatbot_id":"bot-e2e"}')}`);
  t.equal(legacy.status, 200);

  const ready = await fetch(`${base}/ready`);
  t.equal(ready.status, 200);
  t.match(await ready.json(), { status: 'ok', stores: { bus: { status: 'ok', kind: 'embedded' } } });

  const metrics = await (await fetch(`${base}/metrics`)).text();
  t.match(metrics, /chatlytics_ingest_events_accepted_total 2/);

  const docs = await (await fetch(`${base}/docs/json`)).json() as { paths: Record<string, Record<string, { tags?: string[] }>> };
  for (const [p, method] of [['/api/analytics/track', 'post'], ['/api/events/track', 'get'], ['/api/save', 'post']]) {
    t.same(docs.paths[p]?.[method]?.tags, ['tracking'], `${method.toUpperCase()} ${p} documented`);
  }

  child.kill('SIGTERM');
  const [code] = await once(child, 'exit');
  t.equal(code, 0, 'clean exit');

  // The data directory is free again and holds both events: a 200 meant durable.
  const bus = await createEmbeddedBus({ dir: path.join(dataDir, 'bus'), log: createLogger('silent') });
  t.teardown(() => bus.close());
  const stored: string[] = [];
  await bus.replay({ stream: 'events', fromTime: 0, handler: async (b) => {
    for (const m of b.messages) {
      const d = decodeStoredEvent(m.value);
      if (d.ok) stored.push(`${d.event.event}:${d.event.chatbot_id}`);
    }
  } });
  t.same(stored.sort(), ['bot_open:bot-e2e', 'visitor:bot-e2e']);
});
