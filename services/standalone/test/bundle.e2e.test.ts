import t from 'tap';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildBundles, SERVICE_ENTRIES } from '../../../scripts/build.js';
import { exited, start } from './child.js';

// The `start` scripts run bundles (scripts/build.ts) with plain node, while every other test runs
// the TypeScript sources through tsx. This file checks that the bundles are the same product: each
// reads its SQL, migrations, assets, tracker script and wasm through the rewritten import.meta.url
// and finds its npm dependencies in node_modules.
t.setTimeout(600_000);

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
// Inside the repository, as `dist/` is: the bundles find node_modules by walking up from here.
const outdir = path.join(root, 'dist', `test-${process.pid}`);
t.teardown(() => fs.rmSync(outdir, { recursive: true, force: true }));

t.test('npm run build writes one bundle per service entry point, with no npm dependency inside', async (t) => {
  const files = await buildBundles(SERVICE_ENTRIES, outdir);
  t.same(files.map((f) => path.basename(f)).sort(), ['consumer.js', 'dashboard.js', 'ingest.js', 'standalone.js']);
  // The entries and the chunks they share (dynamic imports stay lazy in chunks of their own).
  const js = fs.readdirSync(outdir).filter((f) => f.endsWith('.js'));
  const code = js.map((f) => fs.readFileSync(path.join(outdir, f), 'utf8')).join('\n');
  t.match(code, /from "fastify"/, 'fastify is imported from node_modules, not copied in');
  t.notMatch(code, /from "@chatlytics\//, 'the workspace packages are inside the bundles');
  const all = code.split('import.meta.url').length - 1;
  const rewritten = code.match(/new URL\("(\.\.\/)+[^"]+\.ts", import\.meta\.url\)\.href/g) ?? [];
  t.ok(rewritten.length >= 5, `each source's import.meta.url points at its source file (${rewritten.length})`);
  t.equal(all, rewritten.length + js.length, 'no other import.meta.url than those and each file\'s require shim');
});

t.test('the standalone bundle: tracking lands in ClickHouse, the pages and their assets are served', async (t) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chatlytics-bundle-'));
  t.teardown(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  const s = await start(dataDir, { SQL_API_KEY: 'bundle-test-key-1234' }, 120_000, ['--enable-source-maps', path.join(outdir, 'standalone.js')]);
  t.teardown(() => { if (s.child.exitCode === null) s.child.kill('SIGKILL'); });

  const track = await fetch(`${s.url}/api/analytics/track`, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ event: 'visitor', token: 'bundle-token-1', data: { chatbot_id: 'bot-bundle' } }),
  });
  t.equal(track.status, 200);
  let count = '0';
  for (let i = 0; i < 100 && count !== '1'; i++) {
    const query = encodeURIComponent("SELECT count() FROM events WHERE chatbot_id = 'bot-bundle'");
    count = (await (await fetch(`${s.url}/clickhouse/?query=${query}`, { headers: { 'x-clickhouse-key': 'bundle-test-key-1234' } })).text()).trim();
    if (count !== '1') await new Promise((r) => setTimeout(r, 100));
  }
  t.equal(count, '1', 'bus → consumer (its wasm transcoder) → ClickHouse (its migrations and SQL files)');

  const login = await fetch(`${s.url}/login`);
  t.equal(login.status, 200, 'a page from the templates');
  t.match(await login.text(), /<form/);
  for (const asset of ['app.js', 'uplot.min.js']) t.equal((await fetch(`${s.url}/assets/${asset}`)).status, 200, `asset ${asset}`);
  const tracker = await fetch(`${s.url}/tracker.js`);
  t.equal(tracker.status, 200, 'the tracker script, read from its package');
  t.ok((await tracker.text()).length > 1000);
  t.equal((await fetch(`${s.url}/docs/json`)).status, 200, 'OpenAPI');
  t.equal((await fetch(`${s.url}/docs/`)).status, 200, 'swagger-ui finds its files in node_modules');

  s.child.kill('SIGTERM');
  t.equal(await exited(s.child), 0, 'SIGTERM drains and exits 0');
});

t.test('the ingest bundle answers a tracking request durably on the embedded log', async (t) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chatlytics-bundle-ingest-'));
  t.teardown(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  const s = await start(dataDir, { INGEST_PORT: '0' }, 60_000, [path.join(outdir, 'ingest.js')]);
  t.teardown(() => { if (s.child.exitCode === null) s.child.kill('SIGKILL'); });
  const track = await fetch(`${s.url}/api/analytics/track`, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ event: 'visitor', token: 'bundle-token-2', data: { chatbot_id: 'bot-bundle' } }),
  });
  t.equal(track.status, 200);
  t.same(await track.json(), { success: true });
  s.child.kill('SIGTERM');
  t.equal(await exited(s.child), 0);
});
