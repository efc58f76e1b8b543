import t from 'tap';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { loadConfig } from '@chatlytics/core';
import { buildStandalone } from '../src/standalone-app.js';
import { runCommand } from '../src/cli/commands.js';

/**
 * `cli import` while `npm start` tracks the same visitors: the import goes through the server's
 * bus, so the one consumer of the token's partition numbers it, and live and imported events of a
 * visitor first seen in both at once end with one id. `verify` then finds nothing (exit code 0);
 * after damage it names it (exit code 1), and `verify --repair` mends it.
 */
t.setTimeout(600_000);
const BOT = '56000000-0000-4000-8000-000000000001';
const log = pino({ level: 'silent' });
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chatlytics-import-beside-'));
t.teardown(() => fs.rmSync(dataDir, { recursive: true, force: true }));
const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', SESSION_SECRET: 'import-beside-consumer'.padEnd(40, 'x'), TRACK_RATE_LIMIT_PER_MINUTE: '100000' });
const standalone = await buildStandalone(config, log, { pluginTimeout: 120_000 });
t.teardown(() => standalone.close());
const ctx = { config, log, stores: { postgres: standalone.postgres, clickhouse: standalone.clickhouse, bus: standalone.bus } };
const UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36';

t.test('an import beside live tracking of the same visitors: one id per token, verify finds nothing', async (t) => {
  const tokens = Array.from({ length: 400 }, (_, i) => `visitor-${String(i).padStart(4, '0')}`);
  const hour = Date.now() - 3_600_000;
  const fixture = {
    accounts: [{ id: '56000000-0000-4000-8000-0000000000a1', name: 'Shop', chatbots: [{ id: BOT, name: 'Boots' }] }],
    events: tokens.flatMap((token, i) => [
      { event: 'visitor', token, data: { chatbot_id: BOT }, receivedAt: new Date(hour + i * 10).toISOString() },
      { event: 'convo_started', token, data: { chatbot_id: BOT, open_way: 'popup' }, receivedAt: new Date(hour + i * 10 + 5).toISOString() },
    ]),
  };
  const live = (async () => {
    for (const token of tokens) {
      const res = await standalone.app.inject({ method: 'POST', url: '/api/analytics/track', headers: { 'user-agent': UA }, payload: { event: 'visitor', token, data: { chatbot_id: BOT } } });
      if (res.statusCode !== 200) throw new Error(`tracking answered ${res.statusCode}`);
    }
  })();
  const imported = await runCommand({ command: 'import', file: 'fixture.json', json: fixture }, ctx) as { events: { inserted: number } };
  await live;
  t.equal(imported.events.inserted, 800, 'the import waited until the consumer had stored its events');
  const ch = standalone.clickhouse;
  for (let i = 0; i < 300; i++) {
    const [{ n }] = await ch.query<{ n: string }>('SELECT count() AS n FROM events WHERE chatbot_id = {bot:String}', { bot: BOT });
    if (Number(n) === 1_200) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const [rule] = await ch.query<{ tokens: string; ids: string }>(
    'SELECT uniqExact(token) AS tokens, uniqExact(token_id) AS ids FROM events WHERE chatbot_id = {bot:String} AND NOT is_bot', { bot: BOT });
  t.same(rule, { tokens: '400', ids: '400' }, 'one id per visitor, one visitor per id');
  const verified = await runCommand({ command: 'verify', repair: false }, ctx) as { exitCode: number; differences: { total: number } };
  t.match(verified, { exitCode: 0, differences: { total: 0 } });
});

t.test('verify names damage (exit code 1); --repair of a day that just received rows waits, token ids wait for a stopped server', async (t) => {
  const ch = standalone.clickhouse;
  await ch.command('ALTER TABLE event_hour_counts DELETE WHERE chatbot_id = {bot:String} SETTINGS mutations_sync = 2', { bot: BOT });
  await ch.command("ALTER TABLE events UPDATE token_id = token_id + 1000 WHERE chatbot_id = {bot:String} AND token = 'visitor-0001' AND event = 'visitor' SETTINGS mutations_sync = 2", { bot: BOT });
  const found = await runCommand({ command: 'verify', chatbot: BOT, repair: false }, ctx) as { exitCode: number; differences: { byCheck: Record<string, number> } };
  t.equal(found.exitCode, 1);
  t.ok(found.differences.byCheck.event_hour_counts > 0 && found.differences.byCheck.token_has_several_ids === 1, JSON.stringify(found.differences.byCheck));
  const repair = await runCommand({ command: 'verify', chatbot: BOT, repair: true }, ctx) as { exitCode: number; tokenIds: unknown; days: { busy: unknown[] } };
  t.equal(repair.exitCode, 1, 'not everything could be repaired beside a running server');
  t.match(repair.tokenIds, /stop the server/);
  t.ok(repair.days.busy.length > 0, 'the days that just received rows are left for later');
});
